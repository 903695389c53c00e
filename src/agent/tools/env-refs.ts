/**
 * `${NAME}` in a value of agent.yaml's `env:` (a command tool's or an MCP
 * server's) or an MCP server's `headers:` stands for the environment variable
 * NAME, read when the tool is set up, so a secret never sits in agent.yaml. Every `${` must open such a reference: a malformed one is a config
 * error rather than text sent as it is.
 */
import { LogbookError } from '../../core/index.js';

/** An environment, as the CLI reads it. */
export type Env = Readonly<Record<string, string | undefined>>;

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Why `value` is not well formed, or null when it is. */
export function envRefProblem(value: string): string | null {
  const rest = value.replace(REFERENCE, '');
  return rest.includes('${') ? `"${value}" has a "\${" that does not open a \${NAME} reference (NAME: letters, digits, _)` : null;
}

/** The `${NAME}` references of an `env:` or `headers:` mapping are well formed; `at` names it for the error. */
export function checkEnvRefs(values: Readonly<Record<string, string>> | undefined, at: string): Record<string, string> {
  for (const [k, v] of Object.entries(values ?? {})) {
    const problem = envRefProblem(v);
    if (problem !== null) throw new LogbookError('config', `${at}.${k}: ${problem}`);
  }
  return { ...values };
}

/**
 * `value` with every reference replaced; `where` names the setting for the error
 * an unset variable gives (an empty one counts as set).
 */
export function expandEnvRefs(value: string, env: Env, where: string): string {
  return value.replace(REFERENCE, (_, name: string) => {
    const found = env[name];
    if (found === undefined) {
      throw new LogbookError('config', `${where} names the environment variable ${name}, which is not set; set it, or change agent.yaml`);
    }
    return found;
  });
}

/** Each value of `record` expanded. */
export function expandAll(record: Record<string, string>, env: Env, where: string): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, expandEnvRefs(v, env, `${where}.${k}`)]));
}
