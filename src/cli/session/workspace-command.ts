/** `logbook session diff` and `logbook session rewind`: their options and help; what they do (workspace.ts) loads only when they run. */
import { InvalidArgumentError, type Command } from 'commander';
import type { Environment } from '../environment.js';
import { helpAfter } from '../help.js';
import { addStoreOptions } from '../store.js';
import type { DiffFlags, RewindFlags } from './workspace.js';

const DIFF_HELP = `
A run's workspace (the directory it was started in, or workspace.dir) is
snapshotted beside its journal after each model turn and before its tools run,
after each typed turn, at its end, and before a resume goes on. The diff shows,
turn by turn, the files the tools of each turn changed, and apart from them what
changed between snapshots while nothing of the run ran (a person's edit while a
chat waited). A turn whose tools were interrupted and carried on by a resume is
shown in two parts: before the interruption and after the resume. A file is
named as git's diff headers name it (a name with a control character, a quote
or a backslash in double quotes, C-escaped); a binary file (a NUL byte, or
content that is not UTF-8) is named, not shown; a chmod shows as
"mode 100644 → 100755". Without --turn or --seq, the whole run. Examples:
  logbook session diff RUN
  logbook session diff RUN --turn 2
  logbook session diff RUN --stat`;

const REWIND_HELP = `
Puts the run's workspace back to its state after turn N and forks the
conversation there into a new run (the run itself is never changed); --turn 0
goes back to before any tool of the run ran (the files as its first snapshot
holds them, the conversation before its first model turn). First the
workspace as it is now is snapshotted, so the rewind can be undone; the files
that will change are listed, and asked about on a terminal (--yes otherwise).
Only tracked files are restored, created or removed: an ignored or excluded
file is never touched. What a call to a tool with side effects did outside the
workspace is not undone: such calls after turn N are named. Before any file
changes, every path it would meet is checked: one that holds what the snapshot
does not track (an ignored file where the snapshot has one) stops it with
nothing changed (exit 9). The files of a run still being written (a run going
on, a chat open on it) are not rewound, nor undone: wait for it to end, or
suspend it (exit 1; --conversation, a fork, goes ahead). --undo takes back the last rewind still in place
(again: the one before it, and so on); an undo is a step of its own, which
--redo takes back. Each first snapshots the workspace, so nothing is lost.
Examples:
  logbook session rewind RUN --turn 1           files and conversation
  logbook session rewind RUN --turn 1 --files   files only
  logbook session rewind RUN --turn 0 --files   the files as the run found them
  logbook session rewind --undo                 put back what the last rewind replaced
  logbook session rewind --redo                 take that undo back`;

function count(what: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError(`${what} must be a whole number`);
    return n;
  };
}

export function registerWorkspaceCommands(session: Command, environment: Environment): void {
  addStoreOptions(
    session
      .command('diff')
      .description("what a run changed in its workspace, turn by turn")
      .argument('<id>', 'the run (or a unique part of its id)')
      .option('--turn <n>', 'only the changes of the Nth model turn\'s tools', count('--turn'))
      .option('--seq <seq>', 'only the changes of the turn holding this seq', count('--seq'))
      .option('--stat', 'the files changed and their line counts, without the diff')
      .option('--json', 'one JSON object: each span of changes, who made it, its files and diff'),
  )
    .option('--verbose', 'show where an error came from (also LOGBOOK_DEBUG=1)')
    .addHelpText('after', `${DIFF_HELP}\n${helpAfter(['LOGBOOK_CONFIG', 'LOGBOOK_DEBUG', 'XDG_STATE'], ['ok', 'error', 'usage'])}`)
    .action(async (id: string, flags: DiffFlags) => {
      const { diffSession } = await import('./workspace.js');
      process.exitCode = await diffSession(environment, id, flags);
    });

  addStoreOptions(
    session
      .command('rewind')
      .description("put a run's workspace back to after a turn, and fork its conversation there")
      .argument('[id]', 'the run (or a unique part of its id); with --undo or --redo, the run rewound (default: the run of the last rewind made here)')
      .option('--turn <n>', 'the turn to go back to: the files as they were after it, the conversation through it (0: before any tool ran)', count('--turn'))
      .option('--files', 'restore the files only')
      .option('--conversation', 'fork the conversation only (as session fork --turn N)')
      .option('--yes', 'change the files without asking')
      .option('--undo', 'put back the files the last rewind still in place replaced (again: the rewind before it)')
      .option('--redo', 'take the last undo back: the files as the rewind it undid left them')
      .option('--name <id>', "the fork's run id (default: generated from the clock)"),
  )
    .option('--verbose', 'show where an error came from (also LOGBOOK_DEBUG=1)')
    .addHelpText('after', `${REWIND_HELP}\n${helpAfter(['LOGBOOK_CONFIG', 'LOGBOOK_DEBUG', 'XDG_STATE'], ['ok', 'error', 'usage', 'workspaceConflict'])}`)
    .action(async (id: string | undefined, flags: RewindFlags) => {
      const { rewindSession } = await import('./workspace.js');
      process.exitCode = await rewindSession(environment, id, flags);
    });
}
