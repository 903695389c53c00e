/** The run picker: a search line and the runs that match it, newest first. */
import { Box, Text, useApp, useInput, useStdout } from 'ink';
import { useState } from 'react';
import type { RunInfo } from '../../store/store.js';
import { matching, pressKey, rowText, type PickerState } from './model.js';

export interface PickerProps {
  runs: RunInfo[];
  onDone: (id: string | null) => void;
}

const HELP = 'type to search \u00b7 \u2191\u2193 move \u00b7 enter resume \u00b7 esc cancel';

export function Picker({ runs, onDone }: PickerProps) {
  const { exit } = useApp();
  const { stdout } = useStdout();
  const height = Math.max(3, (stdout.rows || 24) - 4);
  const [state, setState] = useState<PickerState>({ query: '', cursor: 0 });
  useInput((input, key) => {
    const next = pressKey(state, runs, input, key, height);
    if (next.done !== undefined) {
      onDone(next.done.id);
      exit();
    }
    setState(next);
  });
  const shown = matching(runs, state.query);
  const top = Math.max(0, Math.min(state.cursor - Math.floor(height / 2), shown.length - height));
  return (
    <Box flexDirection="column">
      <Text bold>Resume which run? <Text dimColor>{HELP}</Text></Text>
      <Text>
        {'> '}
        {state.query}
        <Text inverse> </Text>
      </Text>
      {shown.length === 0 ? <Text dimColor>no run matches</Text> : null}
      {shown.slice(top, top + height).map((r, i) => (
        <Text key={r.runId} wrap="truncate-end" inverse={top + i === state.cursor}>
          {rowText(r)}
        </Text>
      ))}
      <Text dimColor>
        {shown.length} of {runs.length} runs
      </Text>
    </Box>
  );
}
