/** The full-screen transcript viewer: a header, the transcript rows, a status line. */
import { Box, Text, useApp, useInput, useStdout } from 'ink';
import { useEffect, useMemo, useState } from 'react';
import type { TranscriptItem } from '../../render/index.js';
import { entriesFor, splitMatches, unstyled, type Fold, type Prose, type Row, type Tone } from '../../render/viewer/model.js';
import { initialState, pressAll, rowsFor, type Frame, type ViewState } from '../../render/viewer/state.js';

export interface ViewerProps {
  /** The header line: run id, model, tokens. Sanitized. */
  title: string;
  items: TranscriptItem[];
  /** Kinds of entries shown unfolded at first. */
  unfold: Fold[];
  color: boolean;
  /** The model's prose rendered as Markdown, as the chat shows it (on a color terminal); as written without. */
  prose?: Prose;
}

const TONES: Record<Tone, { color?: string; dimColor?: boolean; bold?: boolean }> = {
  user: { bold: true },
  text: {},
  thinking: { dimColor: true },
  call: { color: 'cyan' },
  output: {},
  bad: { color: 'red' },
  note: { color: 'yellow' },
  blank: {},
};

const HELP = 'j/k \u2191\u2193 PgUp/PgDn g/G move \u00b7 enter fold \u00b7 t thinking \u00b7 o output \u00b7 / search n/N \u00b7 q quit';

function useSize(): { columns: number; rows: number } {
  const { stdout } = useStdout();
  const read = () => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = () => setSize(read());
    stdout.on('resize', onResize);
    return () => void stdout.off('resize', onResize);
  }, [stdout]);
  return size;
}

function Line({ row, selected, query, color }: { row: Row | undefined; selected: boolean; query: string; color: boolean }) {
  if (row === undefined) return <Text> </Text>;
  const tone = color ? TONES[row.tone] : { bold: TONES[row.tone].bold };
  return (
    <Text wrap="truncate-end">
      <Text bold>{selected ? '\u203a ' : '  '}</Text>
      {/* A styled line shows its matches unstyled: a highlight never cuts a styling code. */}
      {(query === '' ? [{ text: row.text, hit: false }] : splitMatches(unstyled(row.text), query)).map((part, i) => (
        <Text key={i} {...tone} inverse={part.hit}>
          {part.text}
        </Text>
      ))}
    </Text>
  );
}

export function Viewer({ title, items, unfold, color, prose }: ViewerProps) {
  const { exit } = useApp();
  const { columns, rows: height } = useSize();
  // Two columns of gutter; one row each for the header and the status line, and
  // one spare so the frame never fills the screen (which would scroll it).
  const width = Math.max(10, columns - 2);
  const entries = useMemo(() => entriesFor(items, width, prose), [items, width, prose]);
  const frame: Frame = { entries, width, height: Math.max(1, height - 3) };
  const [state, setState] = useState<ViewState>(() => initialState(entries, unfold));
  const rows = rowsFor(state, frame);

  useInput((input, key) => setState((s) => pressAll(s, frame, input, key)));
  useEffect(() => {
    if (state.quit) exit();
  }, [state.quit]);

  const visible = Array.from({ length: frame.height }, (_, i) => rows[state.top + i]);
  const where = rows.length === 0 ? 'empty' : `${state.cursor + 1}/${rows.length}`;
  const status = state.searching ? `/${state.input}\u2588` : state.message || HELP;
  return (
    <Box flexDirection="column" width={columns}>
      <Text wrap="truncate-end" inverse>
        {title.padEnd(columns)}
      </Text>
      {visible.map((row, i) => (
        <Line key={i} row={row} selected={state.top + i === state.cursor} query={state.query} color={color} />
      ))}
      <Box>
        <Box flexGrow={1}>
          <Text wrap="truncate-end">{status}</Text>
        </Box>
        <Text> {where}</Text>
      </Box>
    </Box>
  );
}
