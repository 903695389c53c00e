/**
 * A run's spans sent as its records become durable. The run only hands each
 * durable record over (`recorded`: no IO, no waiting); every `flushMs` the
 * times kept beside the journal are read (Store.times: the spans' one source
 * of times), the spans of the records that have them are made (spans.ts) and
 * given to the SDK's BatchSpanProcessor, which batches and sends them off the
 * run's path. A collector that is down or refuses them is one warning, never a
 * failure: the run, its exit code and its journal are the same with or without
 * a collector. At the end (`finish`) the last spans and the root go out, waited
 * for at most `boundMs`.
 */
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NO_TIMES, type JournalRecord, type RunState, type RunTimes } from '../core/index.js';
import type { Store } from '../store/store.js';
import { exportFailure, shownUrl, spanExporter } from './export.js';
import type { OtelSettings } from './settings.js';
import { runInterval, SpanProjector, type DescribedCall, type TraceContext } from './spans.js';

export interface LiveTraceOptions {
  store: Store;
  /** The run as it starts (started, or resumed): the fold of its records so far. */
  state: RunState;
  /** Everything but the conversation, which `conversation` gives once it is read. */
  context: Omit<TraceContext, 'conversationId'>;
  /** The conversation's first run (gen_ai.conversation.id), read off the run's path. */
  conversation: Promise<string>;
  /** How often times are read and spans made; default 1000 ms. */
  flushMs?: number;
  /** How long `finish` waits for the last spans to be sent; default: a little over one export's timeout, so a failure can say why. */
  boundMs?: number;
}

/** What a run's trace is sent through: made before the run starts, so loading the exporter never delays a step. */
export interface TraceSender {
  processor: SpanProcessor;
  flushMs: number;
  /** Whether the collector has refused spans of this run already (its last ones are then not waited for). */
  failing(): boolean;
  /** Says once that the collector does not take the spans (or did not answer in time). */
  warn(message: string): void;
  /** How long one export may take, its retries included. */
  timeoutMs: number;
  /** Ends every connection to the collector now: once the run's end has waited its bound, nothing keeps the process alive. */
  abort(): void;
}

/** How many reads of the times a call waits for its record's time before it goes without a span. */
const TIME_TRIES = 5;

export class LiveTrace {
  private readonly projector: SpanProjector;
  private queue: { call: DescribedCall; tries: number }[] = [];
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> | null = null;
  private finished = false;
  private lastTimes: RunTimes = NO_TIMES;

  private readonly processor: SpanProcessor;
  private readonly sender: TraceSender;
  private conversationRead = false;

  /** Starts following a run: no IO until its first flush. */
  constructor(
    private readonly options: LiveTraceOptions,
    sender: TraceSender,
  ) {
    this.processor = sender.processor;
    this.sender = sender;
    this.projector = new SpanProjector(options.state, { ...options.context, conversationId: options.state.run_id });
    this.timer = setInterval(() => void this.flush(), options.flushMs ?? sender.flushMs);
    this.timer.unref();
  }

  /**
   * The sender of the settings' collector: the exporter and the SDK's batching
   * processor, loaded now. `warn` is told once when the collector does not
   * take the spans.
   */
  static async sender(settings: OtelSettings, warn: (message: string) => void, flushMs = 1000): Promise<TraceSender> {
    const [{ BatchSpanProcessor }, exporter] = await Promise.all([import('./sdk.js'), spanExporter(settings.target)]);
    let failed = false;
    const once = (message: string): void => {
      if (failed) return;
      failed = true;
      warn(message);
    };
    const processor = new BatchSpanProcessor(reporting(exporter, shownUrl(settings.target), once), {
      scheduledDelayMillis: flushMs,
      exportTimeoutMillis: settings.target.timeoutMs,
    });
    return { processor, flushMs, failing: () => failed, warn: once, timeoutMs: settings.target.timeoutMs, abort: () => exporter.abort() };
  }

  /** Record `record` is durable and `state` is the run with it folded in. Never throws, never waits. */
  recorded(record: JournalRecord, state: RunState): void {
    if (this.finished) return;
    try {
      const call = this.projector.describe(record, state);
      if (call !== null) this.queue.push({ call, tries: 0 });
    } catch {
      /* a span is never worth a run */
    }
  }

  /** Makes the spans whose times are kept now and hands them to the processor. */
  private flush(): Promise<void> {
    if (this.flushing !== null || this.queue.length === 0) return this.flushing ?? Promise.resolve();
    this.flushing = this.readTimes()
      .then((times) => {
        if (times !== null) this.drain(times);
      })
      .finally(() => (this.flushing = null));
    return this.flushing;
  }

  /** The run's times now, or null when they cannot be read (the next flush reads them again). */
  private async readTimes(): Promise<RunTimes | null> {
    try {
      if (!this.conversationRead) {
        this.projector.conversation(await this.options.conversation.catch(() => this.projector.runId));
        this.conversationRead = true;
      }
      return await this.options.store.times(this.projector.runId);
    } catch {
      return null;
    }
  }

  /** Hands over the spans `times` time, keeping a while those whose record has no time yet. */
  private drain(times: RunTimes): void {
    this.lastTimes = times;
    const waiting: typeof this.queue = [];
    for (const item of this.queue) {
      const span = this.projector.span(item.call, times);
      if (span !== null) this.processor.onEnd(span);
      else if (!times.records.has(item.call.seq) && ++item.tries < TIME_TRIES) waiting.push(item);
    }
    this.queue = waiting;
  }

  /**
   * The run has ended its execution here (`state`: its fold at the end): the
   * remaining spans and the root span go out, waited for at most `boundMs`.
   */
  async finish(state: RunState): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    clearInterval(this.timer);
    // A collector that refused the run's spans already is not waited for again.
    const waitMs = this.sender.failing() ? 0 : (this.options.boundMs ?? this.sender.timeoutMs + 250);
    let sent = false;
    const bound = new Promise<void>((resolve) => setTimeout(resolve, waitMs).unref());
    const last = (async () => {
      await this.flushing;
      const times = await this.readTimes();
      if (times !== null) this.drain(times);
      const interval = runInterval(this.lastTimes, []);
      if (interval !== null) this.processor.onEnd(this.projector.rootSpan(state, interval));
      await this.processor.forceFlush();
      sent = true;
    })().catch(() => {});
    await Promise.race([last, bound]);
    if (!sent && waitMs > 0) {
      this.sender.warn(`OpenTelemetry: the collector did not take the run's last spans within ${waitMs} ms; \`logbook session export ID --otlp-endpoint URL\` sends them`);
    }
    void this.processor.shutdown().catch(() => {});
    this.sender.abort();
  }
}

/** The exporter, telling `warn` (which says it once) when the collector (at `url`, as shown) does not take the spans. */
function reporting(exporter: SpanExporter, url: string, warn: (message: string) => void): SpanExporter {
  return {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
      exporter.export(spans, (result) => {
        if (result.code !== 0) {
          warn(`OpenTelemetry: the collector at ${url} did not take the run's spans (${exportFailure(result)}); the run goes on, and \`logbook session export ID --otlp-endpoint URL\` sends them later`);
        }
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    ...(exporter.forceFlush !== undefined ? { forceFlush: () => exporter.forceFlush!() } : {}),
  };
}
