/**
 * `--model`, `--system`, `--system-file` and `--append-system`: what a run is
 * given instead of its config's model and system prompt. They change the
 * config the agent is built from, so the fingerprint records what was used,
 * and a resume is checked against them when they are given again (the resume
 * hint repeats them) or against the config when they are not (drift, as any
 * other change of the config is).
 */
import { readFileSync } from 'node:fs';
import type { LogbookConfig } from '../config/config.js';
import { LogbookError } from '../core/index.js';

export interface OverrideFlags {
  model?: string;
  system?: string;
  /** A file whose text is the system prompt. */
  systemFile?: string;
  /** Text appended to the system prompt (the config's, or --system's), after a blank line. */
  appendSystem?: string;
}

function readSystemFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (err as Error).message;
    throw new LogbookError('config', `cannot read --system-file ${path}: ${why}`, { cause: err });
  }
}

/** The config with the flags' model and system prompt in place of its own. */
export function withOverrides(config: LogbookConfig, flags: OverrideFlags): LogbookConfig {
  if (flags.system !== undefined && flags.systemFile !== undefined) {
    throw new LogbookError('usage', '--system and --system-file both give the system prompt: give one');
  }
  if (flags.model !== undefined && flags.model.trim() === '') throw new LogbookError('usage', '--model is empty: give a model name');
  const base = flags.system ?? (flags.systemFile !== undefined ? readSystemFile(flags.systemFile) : config.system);
  const system = flags.appendSystem === undefined ? base : base === '' ? flags.appendSystem : `${base}\n\n${flags.appendSystem}`;
  return { ...config, ...(flags.model !== undefined ? { model: flags.model } : {}), system };
}

/** `--flag VALUE`, or `--flag=VALUE` when the value could be read as an option. */
const flagArg = (flag: string, value: string | undefined): string[] =>
  value === undefined ? [] : value.startsWith('-') ? [`${flag}=${value}`] : [flag, value];

/** The flags again, as arguments: what a command that continues the run repeats. */
export function overrideArguments(flags: OverrideFlags): string[] {
  return [
    ...flagArg('--model', flags.model),
    ...flagArg('--system', flags.system),
    ...flagArg('--system-file', flags.systemFile),
    ...flagArg('--append-system', flags.appendSystem),
  ];
}
