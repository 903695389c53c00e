/**
 * The scripted run the crash and resume tests share: three model turns, the
 * first two with batches of two and three `note` calls, and the witnesses that
 * show what a run did (notes taken, model turns asked for).
 */
import { existsSync, readFileSync } from 'node:fs';

export const FIVE_NOTES_SCRIPT = {
  turns: [
    { text: 'Two notes first.', tool_calls: [{ name: 'note', input: { text: 'a' } }, { name: 'note', input: { text: 'b' } }] },
    {
      text: 'Three more.',
      tool_calls: [{ name: 'note', input: { text: 'c' } }, { name: 'note', input: { text: 'd' } }, { name: 'note', input: { text: 'e' } }],
    },
    { text: 'Noted a to e.' },
  ],
};

/** The non-empty lines of a file; none when it does not exist. */
export const lines = (path: string): string[] => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : []);

/** The turns the script provider was asked for, from its LOGBOOK_SCRIPT_LOG file. */
export const turnsAsked = (log: string): number[] => lines(log).map((l) => (JSON.parse(l) as { turn: number }).turn);

export interface FiveNotesConfig {
  /** The `note` tool's shell script: it gets the note as $1. */
  note: string;
  system?: string;
  maxIterations?: number;
  /** More top-level YAML (a `session:` block, `nats:`). */
  extra?: string;
  /** Pass NOTES_FILE and SLOW_NOTE on to the tool (see NOTE_DEFAULTS). */
  witnesses?: boolean;
}

/**
 * What a `note` script that reads $NOTES_FILE (where notes go) and $SLOW_NOTE
 * (which note is slow) is run with: a tool inherits no such variable, so the
 * config passes them on through its `env:` (`witnesses: true`), and every run
 * must set both. Set, but harmless.
 */
export const NOTE_DEFAULTS = { NOTES_FILE: '/dev/null', SLOW_NOTE: '' };

/** The agent.yaml of the five-notes run: the script provider reading script.json beside it, and the `note` tool. */
export function fiveNotesConfig(o: FiveNotesConfig): string {
  return `provider: script
script: script.json
system: ${o.system ?? 'You take notes.'}
max_iterations: ${o.maxIterations ?? 10}
${o.extra ?? ''}
tools:
  - name: note
    description: Write a note down
    input_schema: { type: object, properties: { text: { type: string } }, required: [text] }
    command: [sh, -c, '${o.note}', sh, '{{text}}']
${o.witnesses ? '    env: { NOTES_FILE: "${NOTES_FILE}", SLOW_NOTE: "${SLOW_NOTE}" }\n' : ''}`;
}
