/**
 * The environment a tool's process gets, a command tool's and an MCP stdio
 * server's alike: an allow-list, never logbook's whole environment, so an API
 * key or any other secret in it reaches a tool only when agent.yaml names it.
 * A model can make a tool print its environment (`cat /proc/self/environ`),
 * and whatever a tool prints goes to the journal and back to the model.
 */
import { expandAll, type Env } from './env-refs.js';

/**
 * The variables a tool inherits: what a program needs to find its files and
 * behave at a terminal (sudo's default list, which the MCP SDK also uses for
 * the stdio servers it starts).
 */
export const INHERITED_VARIABLES = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'] as const;

/**
 * The inherited variables `env` holds, and then `named` (agent.yaml's `env:`,
 * whose `${NAME}` references are read from `env`; `where` names the setting
 * for the error an unset one gives). Shell functions exported as variables
 * (`() { ...`) are not inherited, as the SDK does.
 */
export function toolEnvironment(env: Env, named: Readonly<Record<string, string>>, where: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of INHERITED_VARIABLES) {
    const value = env[name];
    if (value !== undefined && !value.startsWith('()')) out[name] = value;
  }
  return { ...out, ...expandAll(named, env, where) };
}
