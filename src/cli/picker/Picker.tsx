/** The run picker: a search line and the conversations that match it, this directory's first. */
import { Box, Text, useApp, useInput, useStdout } from 'ink';
import { useState } from 'react';
import { initialState, matching, pressKey, rowText, rowWidths, type PickerEntry, type PickerState } from './model.js';

export interface PickerProps {
  entries: PickerEntry[];
  onDone: (id: string | null) => void;
}

const HELP = 'type to search (ctrl-u clears) \u00b7 \u2191\u2193 move \u00b7 enter resume \u00b7 esc cancel';

export function Picker({ entries, onDone }: PickerProps) {
  const { exit } = useApp();
  const { stdout } = useStdout();
  const height = Math.max(3, (stdout.rows || 24) - 4);
  const columns = stdout.columns || 80;
  const [state, setState] = useState<PickerState>(() => initialState(entries));
  useInput((input, key) => {
    const next = pressKey(state, entries, input, key, height);
    if (next.done !== undefined) {
      onDone(next.done.id);
      exit();
    }
    setState(next);
  });
  const shown = matching(entries, state.query);
  const widths = rowWidths(entries);
  const top = Math.max(0, Math.min(state.cursor - Math.floor(height / 2), shown.length - height));
  const offered = shown.filter((e) => e.refusal === null).length;
  // A completed run is refused only for want of a follow-up: say how to offer it.
  const completed = shown.some((e) => e.refusal !== null && e.run.status === 'completed');
  return (
    <Box flexDirection="column">
      <Text bold>
        Resume which run? <Text dimColor>{HELP}</Text>
      </Text>
      <Text>
        {'> '}
        {state.query}
        <Text inverse> </Text>
      </Text>
      {shown.length === 0 ? <Text dimColor>no run matches</Text> : null}
      {shown.slice(top, top + height).map((e, i) => (
        <Text key={e.run.runId} wrap="truncate-end" inverse={top + i === state.cursor && e.refusal === null} dimColor={e.refusal !== null}>
          {rowText(e, widths, columns)}
        </Text>
      ))}
      <Text dimColor>
        {shown.length} of {entries.length} conversations{offered < shown.length ? ` (${shown.length - offered} cannot be continued with this config)` : ''}
      </Text>
      {completed ? <Text dimColor>a completed run takes a follow-up: logbook run --resume "PROMPT" offers it</Text> : null}
    </Box>
  );
}
