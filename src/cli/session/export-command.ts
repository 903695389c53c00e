/** `logbook session export`: its options and help; what it does (export.ts) loads only when it runs. */
import { Option, type Command } from 'commander';
import type { Environment } from '../environment.js';
import { storeCommandHelp } from '../help.js';
import { addStoreOptions } from '../store.js';
import type { ExportFlags } from './export.js';

/** The stored run's formats (api/formats.ts), and otlp: the run's OpenTelemetry spans. */
import { SESSION_FORMATS } from '../../api/formats.js';

export const FORMATS = [...SESSION_FORMATS, 'otlp'] as const;
export type Format = (typeof FORMATS)[number];

export const EXPORT_HELP = `
Formats: md, a Markdown transcript (the prompt, each turn's prose, thinking,
tool calls each followed by its result, the in-flight turn and how the run
ended; tool output in fences that hold whatever it contains); html, one
self-contained page (no script, no network, tool output collapsible, light
and dark) that shows every journal string as text; jsonl, the journal's
stored lines byte for byte (what another logbook, or the reference writer,
reads); otlp, the run's OpenTelemetry trace as one OTLP/JSON request (what
an OTLP/HTTP collector takes; docs/guide/observability.md). Without --format,
the extension of -o chooses (.html or .htm: html; .jsonl: jsonl), else md.

--otlp-endpoint URL sends the trace to an OTLP/HTTP collector instead
(http://localhost:4318, to which /v1/traces is added; a URL with a path is
used as it is), with the protocol and headers of the config's otel: block or
the OTEL_EXPORTER_OTLP_* variables: a finished run, or a crashed one. The same
run always makes the same trace (its ids come from the run id).

With -o FILE the export replaces FILE whole, the way -o does elsewhere: it is
written beside it and renamed into place, so FILE is never seen half written,
and keeps the mode of the file it replaces; stderr then says which run went
where. A new file is readable by its
owner alone (0600), like the journal it comes from. Examples:
  logbook session export RUN > run.md
  logbook session export RUN -o run.html
  logbook session export RUN --format otlp -o run.otlp.json
  logbook session export RUN --otlp-endpoint http://localhost:4318`;

export function registerExportCommand(session: Command, environment: Environment): void {
  addStoreOptions(
    session
      .command('export')
      .description('write a run as a Markdown transcript, a self-contained HTML page, or its journal lines')
      .argument('<id>', 'the run id (or a unique part of it)')
      .addOption(new Option('--format <format>', 'the format (default: from the -o extension, else md)').choices(FORMATS))
      .option('-o, --output <file>', 'write to FILE, replacing it (default: stdout)')
      .option('--otlp-endpoint <url>', "send the run's OpenTelemetry trace to this OTLP/HTTP collector instead of writing it")
      .option('--lineage', 'the run with its origins: the conversation from its first run, each run in turn (md and html)')
      .option('--diffs', 'with the workspace changes of each turn, their unified diffs (md and html; without it only the file names)'),
  )
    .option('--verbose', 'show where an error came from (also LOGBOOK_DEBUG=1)')
    .addHelpText('after', `${EXPORT_HELP}\n${storeCommandHelp(['OTEL'])}`)
    .action(async (id: string, flags: ExportFlags) => {
      const { exportSession, writeFileAtomically, wroteLine } = await import('./export.js');
      const exported = await exportSession(environment, id, flags);
      if (flags.otlpEndpoint !== undefined) return; // sent: nothing to write
      if (flags.output === undefined) process.stdout.write(exported.document);
      else {
        writeFileAtomically(flags.output, exported.document);
        process.stderr.write(wroteLine(exported, flags.output));
      }
    });
}
