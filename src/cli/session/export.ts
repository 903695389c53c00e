/**
 * `logbook session export ID`: a run as a Markdown transcript or one
 * self-contained HTML page, on stdout or into a file. The rendering is
 * src/render/export's; this module picks the format and writes the bytes.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, fsyncSync, openSync, realpathSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { LogbookError } from '../../core/index.js';
import { exportSession as exportStored } from '../../api/export.js';
import { sanitizeLine } from '../../render/sanitize.js';
import { fsyncDir } from '../../store/file/fs.js';
import { resolveRunId } from '../../store/resolve.js';
import type { Environment } from '../environment.js';
import { findConfig, withStore, type StoreFlags } from '../store.js';
import { tracingSettings } from '../tracing.js';
import type { LogbookConfig } from '../../config/config.js';
import type { Store } from '../../store/store.js';
import type { Format } from './export-command.js';

export interface ExportFlags extends StoreFlags {
  format?: Format;
  output?: string;
  /** Send the run's spans to this OTLP/HTTP collector instead of writing a document. */
  otlpEndpoint?: string;
  /** The run with its origins: the conversation from its first run. */
  lineage?: boolean;
  diffs?: boolean;
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

export interface Exported {
  document: string;
  /** The run exported (the id given may have been a part of it). */
  runId: string;
  format: Format;
}

/** Renders run `id` in the format the flags choose. */
export async function exportSession(environment: Environment, id: string, flags: ExportFlags): Promise<Exported> {
  const format = exportFormat(flags);
  if (flags.otlpEndpoint !== undefined && flags.format !== undefined && flags.format !== 'otlp') {
    throw new LogbookError('usage', `--otlp-endpoint sends the run's spans; it takes no --format ${flags.format}`);
  }
  if (flags.otlpEndpoint !== undefined && flags.output !== undefined) throw new LogbookError('usage', '--otlp-endpoint sends the spans to the collector: drop -o, or drop --otlp-endpoint to write them to a file');
  const config = findConfig(flags.config, environment, flags.stateDir);
  return withStore(environment, flags, async (store) => {
    const runId = await resolveRunId(store, id);
    if (format === 'otlp' || flags.otlpEndpoint !== undefined) {
      if (flags.lineage) throw new LogbookError('usage', "--lineage makes one document of several runs, as md or html; a trace is one run's");
      return { document: await traceOf(store, runId, config, environment, flags.otlpEndpoint), runId, format: 'otlp' };
    }
    // What the runs spent, priced by the config at hand (its prices:) and the price table.
    const prices = format === 'jsonl' ? undefined : await (await import('../../api/long-run-facts.js')).pricesAtHand(config, environment.env);
    const path = environment.env.PATH;
    const options = {
      ...(prices !== undefined ? { prices } : {}),
      ...(flags.lineage ? { lineage: true } : {}),
      ...(flags.diffs ? { diffs: true } : {}),
      ...(path !== undefined && path !== '' ? { searchPath: path } : {}),
    };
    return { document: await exportStored(store, runId, format, options), runId, format };
  });
}

const FORMAT_NAMES: Record<Format, string> = { md: 'a Markdown transcript', html: 'an HTML page', jsonl: 'its journal lines', otlp: 'its OpenTelemetry trace (OTLP/JSON)' };

/** What stderr says once -o FILE is written. */
export function wroteLine(exported: Exported, path: string): string {
  return `wrote run ${exported.runId} as ${FORMAT_NAMES[exported.format]} to ${sanitizeLine(resolve(path))}\n`;
}

/**
 * Run `id`'s trace (api/trace.ts): OTLP/JSON to write, or, with `endpoint`,
 * sent to that collector (and nothing to write).
 */
async function traceOf(store: Store, id: string, config: LogbookConfig | undefined, environment: Environment, endpoint: string | undefined): Promise<string> {
  const [{ runTrace, traceJson, sendTrace }, { endpointTarget }, { shownUrl }] = await Promise.all([import('../../api/trace.js'), import('../../otel/settings.js'), import('../../otel/export.js')]);
  const live = tracingSettings(config, environment);
  const trace = await runTrace(store, id, {
    captureContent: live?.captureContent ?? config?.otel?.capture_content === true,
    serviceName: live?.serviceName ?? environment.otel.serviceName ?? 'logbook',
    ...(config !== undefined ? { config } : {}),
  });
  if (trace.untimed > 0) process.stderr.write(`logbook: ${trace.untimed} of the run's calls have no kept times and are left out of its trace\n`);
  if (endpoint === undefined) return traceJson(trace);
  const target = endpointTarget(endpoint, live, environment.otel);
  await sendTrace(trace, target);
  process.stderr.write(`sent ${trace.spans.length} spans of run ${id} to ${shownUrl(target)} (trace ${trace.traceId})\n`);
  return '';
}
