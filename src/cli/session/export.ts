/**
 * `logbook session export ID`: a run as a Markdown transcript or one
 * self-contained HTML page, on stdout or into a file. The rendering is
 * src/render/export's; this module picks the format and writes the bytes.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, fsyncSync, openSync, realpathSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { Option, type Command } from 'commander';
import { LogbookError } from '../../core/index.js';
import { EXPORT_FORMATS, exportRun } from '../../render/export/index.js';
import { fsyncDir } from '../../store/file/fs.js';
import { resolveRunId } from '../../store/resolve.js';
import type { Environment } from '../environment.js';
import { storeCommandHelp } from '../help.js';
import { addStoreOptions, withStore, type StoreFlags } from '../store.js';

/** The renderings, and jsonl: the stored lines themselves. */
const FORMATS = [...EXPORT_FORMATS, 'jsonl'] as const;
type Format = (typeof FORMATS)[number];

export interface ExportFlags extends StoreFlags {
  format?: Format;
  output?: string;
}

export const EXPORT_HELP = `
Formats: md, a Markdown transcript (the prompt, each turn's prose, thinking,
tool calls each followed by its result, the in-flight turn and how the run
ended; tool output in fences that hold whatever it contains); html, one
self-contained page (no script, no network, tool output collapsible, light
and dark) that shows every journal string as text; jsonl, the journal's
stored lines byte for byte (what another logbook, or the reference writer,
reads). Without --format, the extension of -o chooses (.html or .htm: html;
.jsonl: jsonl), else md.

With -o FILE the export replaces FILE whole, the way -o does elsewhere: it is
written beside it and renamed into place, so FILE is never seen half written,
and keeps the mode of the file it replaces. A new file is readable by its
owner alone (0600), like the journal it comes from. Examples:
  logbook session export RUN > run.md
  logbook session export RUN -o run.html`;

const FROM_EXTENSION: Record<string, Format> = { '.html': 'html', '.htm': 'html', '.jsonl': 'jsonl' };

/** --format, else the -o file's extension, else Markdown. */
export function exportFormat(flags: ExportFlags): Format {
  if (flags.format !== undefined) return flags.format;
  if (flags.output === undefined) return 'md';
  return FROM_EXTENSION[extname(flags.output).toLowerCase()] ?? 'md';
}

const errnoOf = (err: unknown): string | undefined => (err as NodeJS.ErrnoException).code;

function cannotWrite(path: string, err: unknown): LogbookError {
  const why = errnoOf(err) === 'ENOENT' ? 'no such directory' : errnoOf(err) === 'EACCES' ? 'permission denied' : (err as Error).message;
  return new LogbookError('io', `cannot write ${path}: ${why}; name a file in a writable directory with -o`, { cause: err });
}

/** The file a write to `path` lands in (through a symlink), and the mode it keeps; 0600 for a new file. */
function target(path: string): { file: string; mode: number } {
  let file: string;
  try {
    file = realpathSync(path);
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return { file: path, mode: 0o600 };
    throw cannotWrite(path, err);
  }
  const stat = statSync(file);
  if (!stat.isFile()) throw new LogbookError('usage', `cannot write ${path}: not a regular file; name a file with -o`);
  return { file, mode: stat.mode & 0o777 };
}

/** Replaces `path` with `text`: written and fsynced beside it, then renamed over it, so it is old or new, never half. */
export function writeFileAtomically(path: string, text: string): void {
  const { file, mode } = target(path);
  const dir = dirname(file);
  const tmp = join(dir, `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  let fd = -1;
  try {
    fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    fchmodSync(fd, mode);
    const bytes = Buffer.from(text, 'utf8');
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
    fsyncSync(fd);
    closeSync(fd);
    fd = -1;
    renameSync(tmp, file);
    fsyncDir(dir);
  } catch (err) {
    if (fd >= 0) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      /* never made, or already renamed */
    }
    throw cannotWrite(path, err);
  }
}

/** Renders run `id` in the format the flags choose; returns the document. */
export async function exportSession(environment: Environment, id: string, flags: ExportFlags): Promise<string> {
  const format = exportFormat(flags);
  return withStore(environment, flags, async (store) => {
    const run = await resolveRunId(store, id);
    if (format === 'jsonl') return (await store.lines(run)).map((line) => `${line}\n`).join('');
    const loaded = await store.load(run);
    return exportRun(format, loaded.state, { times: { created: loaded.created, updated: loaded.updated } });
  });
}

export function registerExportCommand(session: Command, environment: Environment): void {
  addStoreOptions(
    session
      .command('export')
      .description('write a run as a Markdown transcript, a self-contained HTML page, or its journal lines')
      .argument('<id>', 'the run id (or a unique start of it)')
      .addOption(new Option('--format <format>', 'the format (default: from the -o extension, else md)').choices(FORMATS))
      .option('-o, --output <file>', 'write to FILE, replacing it (default: stdout)'),
  )
    .option('--verbose', 'show where an error came from (also LOGBOOK_DEBUG=1)')
    .addHelpText('after', `${EXPORT_HELP}\n${storeCommandHelp()}`)
    .action(async (id: string, flags: ExportFlags) => {
      const document = await exportSession(environment, id, flags);
      if (flags.output === undefined) process.stdout.write(document);
      else writeFileAtomically(flags.output, document);
    });
}
