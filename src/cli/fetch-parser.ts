/**
 * Node's fetch parses HTTP with a WebAssembly module (undici's llhttp). Once a
 * function of it has run enough, V8 recompiles it with its optimizing tier on a
 * worker thread, and the process's exit waits for that worker: 60 to 100 ms
 * after a run's last record (500 ms on a loaded machine), for code nothing
 * runs again. What a command parses (a model's answers) never needs that tier.
 */
import { setFlagsFromString } from 'node:v8';

/** A tiering budget no command spends: the module stays in its baseline tier. The flag exists from Node 20 on. */
const BUDGET_FLAG = '--wasm-tiering-budget=1000000000';

let kept = false;

/**
 * Keeps fetch's HTTP parser in WebAssembly's baseline tier, for a command that
 * is about to call a model over fetch. A V8 flag changed at run time makes V8
 * refuse the code cache of Node's own modules compiled after it (undici's
 * JavaScript took twice as long), so fetch is loaded first: its `Headers`,
 * which the provider's SDK would load for its first request anyway.
 */
export function keepFetchParserBaseline(): void {
  if (kept) return;
  kept = true;
  if (typeof globalThis.Headers !== 'function') return; // no fetch here (it loads with Headers): nothing to keep
  setFlagsFromString(BUDGET_FLAG);
}
