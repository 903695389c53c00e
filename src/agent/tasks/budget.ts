/**
 * A request's `budget`, which can only lower the serving agent's own limits:
 * `max_tokens` the tokens the task may spend in all (the agent's `budget`),
 * `max_iterations` its model calls, `call_timeout` (a Go duration) how long one
 * model call may take. A budget that asks for more than the agent allows is
 * refused, not trimmed: the caller asked for something this agent does not do.
 */
import type { Budget } from '../../a2a/index.js';
import { LONGEST_TIMER_MS, LONGEST_TIMER_TEXT } from '../../core/index.js';
import type { Agent } from '../agent.js';
import type { ExecutionLimits } from '../runner.js';

/** Go's units; its microseconds also as `µs` (U+00B5) and `μs` (U+03BC), escaped: a regular expression's text is kept as written, and the build writes ASCII. */
const UNITS_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, '\u00b5s': 1e-3, '\u03bcs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds of a Go duration (`90s`, `1m30s`, `1.5h`, `250ms`), or null when it is not one. */
export function parseGoDuration(text: string): number | null {
  const m = /^([-+]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|\u00b5s|\u03bcs|ms|s|m|h))+$/.exec(text);
  if (text === '0') return 0;
  if (m === null) return null;
  let total = 0;
  for (const part of text.replace(/^[-+]/, '').matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/g)) total += Number(part[1]) * UNITS_MS[part[2]!]!;
  return m[1] === '-' ? -total : total;
}

/** Why `budget` cannot be served by `agent`, or null when it can. */
export function budgetProblem(budget: Budget | undefined, agent: Pick<Agent, 'maxIterations' | 'budget'>): string | null {
  if (budget === undefined) return null;
  if (budget.max_iterations && budget.max_iterations > agent.maxIterations) {
    return `budget max_iterations ${budget.max_iterations} is above this agent's limit of ${agent.maxIterations} model calls`;
  }
  if (budget.max_tokens && agent.budget !== undefined && budget.max_tokens > agent.budget) {
    return `budget max_tokens ${budget.max_tokens} is above this agent's token budget of ${agent.budget}`;
  }
  if (budget.call_timeout) {
    const ms = parseGoDuration(budget.call_timeout);
    if (ms === null) return `budget call_timeout ${JSON.stringify(budget.call_timeout)} is not a duration (Go's: 90s, 2m, 1h30m)`;
    if (ms < 0) return `budget call_timeout ${budget.call_timeout} is negative`;
    if (ms > LONGEST_TIMER_MS) return `budget call_timeout ${budget.call_timeout} is longer than this agent can time a call (${LONGEST_TIMER_TEXT})`;
  }
  return null;
}

/** The limits a task runs under: the agent's, lowered by the budget (which budgetProblem passed). */
export function budgetLimits(budget: Budget | undefined): ExecutionLimits {
  if (budget === undefined) return {};
  const timeout = budget.call_timeout ? parseGoDuration(budget.call_timeout) : null;
  return {
    ...(budget.max_iterations ? { maxIterations: budget.max_iterations } : {}),
    ...(budget.max_tokens ? { budget: budget.max_tokens } : {}),
    ...(timeout !== null && timeout > 0 ? { modelCallTimeoutMs: timeout } : {}),
  };
}
