/**
 * `logbook session export ID`: a run as a Markdown transcript or one
 * self-contained HTML page, on stdout or into a file. The rendering is
 * src/render/export's; this module picks the format and writes the bytes.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, fsyncSync, openSync, realpathSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { LogbookError } from '../../core/index.js';
import { exportRun } from '../../render/export/index.js';
import { fsyncDir } from '../../store/file/fs.js';
import { resolveRunId } from '../../store/resolve.js';
import type { Environment } from '../environment.js';
import { withStore, type StoreFlags } from '../store.js';
import type { Format } from './export-command.js';

export interface ExportFlags extends StoreFlags {
  format?: Format;
  output?: string;
}

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
    const agents = loaded.state.remote_calls.length === 0 ? {} : await (await import('../../agent/remote-origins.js')).toolAgents(store, run);
    return exportRun(format, loaded.state, { times: { created: loaded.created, updated: loaded.updated }, agents });
  });
}
