/**
 * Opens the full-screen viewer on the terminal and returns when it is closed.
 * Imported lazily: only this path loads Ink and React.
 */
import { sanitizeLine, transcriptItems, type ToolAgents } from '../../render/index.js';
import type { LoadedRun } from '../../store/store.js';
import { count } from '../output.js';
import { statusText } from '../session/show.js';
import { inkOnTerminal } from '../ink-terminal.js';
import { ansiMarkdown, colorWanted } from '../terminal.js';
import type { Fold, Prose } from '../../render/viewer/model.js';

const ENTER_ALT_SCREEN = '\u001b[?1049h\u001b[H';
const LEAVE_ALT_SCREEN = '\u001b[?1049l';

export interface ViewerOptions {
  /** Tool output unfolded at first (`--tool-output`). */
  toolOutput?: boolean;
  /** False from --no-color. */
  color?: boolean;
  /** NO_COLOR and TERM are read from here. */
  env: Readonly<Record<string, string | undefined>>;
  /** Which agent runs each remote tool, to name it on its calls. */
  agents?: ToolAgents;
}

export function viewerTitle(run: LoadedRun): string {
  const { state } = run;
  const c = state.counters;
  const cache = c.cache_read_tokens + c.cache_create_tokens > 0 ? ` (cache ${count(c.cache_read_tokens)} read, ${count(c.cache_create_tokens)} created)` : '';
  return ` ${state.run_id} \u00b7 ${sanitizeLine(state.fingerprint.model)} \u00b7 ${statusText(state, run.held)} \u00b7 ${count(c.llm_calls)} model call${c.llm_calls === 1 ? '' : 's'} \u00b7 tokens ${count(c.in_tokens)} in, ${count(c.out_tokens)} out${cache}`;
}

/** Markdown as the chat's answers show it on a color terminal (terminal.ts ansiMarkdown). */
async function markdownProse(): Promise<Prose> {
  const { renderMarkdown } = await import('../../render/markdown.js');
  return (text, width) => renderMarkdown(text, { width, theme: ansiMarkdown }).split('\n');
}

export async function openViewer(run: LoadedRun, options: ViewerOptions): Promise<void> {
  inkOnTerminal();
  const [{ render }, { Viewer }] = await Promise.all([import('ink'), import('./Viewer.js')]);
  const unfold: Fold[] = options.toolOutput ? ['output'] : [];
  const color = colorWanted(process.stdout, options);
  // The model's Markdown rendered as the chat renders an answer: on a color terminal, as written elsewhere.
  const prose = color ? await markdownProse() : undefined;
  const leave = (): void => void process.stdout.write(LEAVE_ALT_SCREEN);
  process.stdout.write(ENTER_ALT_SCREEN);
  process.once('exit', leave);
  try {
    const app = render(
      <Viewer
        title={viewerTitle(run)}
        items={transcriptItems(run.state, options.agents ? { agents: options.agents } : {})}
        unfold={unfold}
        color={color}
        {...(prose !== undefined ? { prose } : {})}
      />,
      { exitOnCtrlC: false, patchConsole: false },
    );
    // Until Ink has put the terminal in raw mode, a Ctrl-C is a SIGINT rather than a key: it closes the viewer as the key does.
    const quit = (): void => app.unmount();
    process.once('SIGINT', quit);
    try {
      await app.waitUntilExit();
    } finally {
      process.off('SIGINT', quit);
    }
  } finally {
    process.off('exit', leave);
    leave();
  }
}
