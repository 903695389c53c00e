/**
 * Every environment variable the command honours is read here, once, at its
 * edge; nothing below the CLI reads process.env.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { OtelEnvironment } from '../otel/settings.js';
import { defaultConfigCacheDir, type ConfigCache } from '../config/config-cache.js';
import { defaultStateDir } from '../store/file/paths.js';
import { builtCodeIdentity } from '../store/package-version.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** The variables, for `--help`: name and meaning. */
export const ENVIRONMENT_HELP: readonly [string, string][] = [
  ['LOGBOOK_CONFIG', 'the config file when --config is not given (before ./agent.yaml and $XDG_CONFIG_HOME/logbook/agent.yaml)'],
  ['LOGBOOK_CONFIG_CACHE=0', 'check the config anew at each start, not taken as checked from $XDG_CACHE_HOME/logbook/config (default ~/.cache/logbook/config)'],
  ['LOGBOOK_DEBUG=1', 'print where an error came from (as --verbose does)'],
  ['LOGBOOK_PROVIDER_MAX_RETRIES', 'retries of a failed model call, 0 to 20 (default 4)'],
  ['ANTHROPIC_API_KEY, OPENAI_API_KEY', 'the API key (or the variable api_key_env names in the config)'],
  ['ANTHROPIC_BASE_URL, OPENAI_BASE_URL', 'the API\'s address when the config sets no base_url'],
  ['XDG_STATE_HOME', 'runs live in $XDG_STATE_HOME/logbook/runs (default ~/.local/state/logbook/runs)'],
  ['XDG_CONFIG_HOME', 'the last place a config is looked for is $XDG_CONFIG_HOME/logbook/agent.yaml (default ~/.config/logbook/agent.yaml)'],
  ['NO_COLOR', 'no color'],
  ['OTEL_EXPORTER_OTLP_ENDPOINT', 'send each run\'s OpenTelemetry spans to this OTLP/HTTP collector (also _TRACES_ENDPOINT, _HEADERS, _PROTOCOL: http/protobuf or http/json; OTEL_SERVICE_NAME; OTEL_SDK_DISABLED=true)'],
];

export interface Environment {
  env: Env;
  /** LOGBOOK_DEBUG=1 */
  debug: boolean;
  /** LOGBOOK_PROVIDER_MAX_RETRIES, as given (checked when a provider is built). */
  maxRetries: string | undefined;
  /** LOGBOOK_SCRIPT_LOG: where the script provider records the turns it is asked for. */
  scriptLog: string | undefined;
  /** The state directory when --state-dir is not given. */
  defaultStateDir: string;
  /** LOGBOOK_CONFIG */
  config: string | undefined;
  /** $XDG_CONFIG_HOME/logbook/agent.yaml (else ~/.config/logbook/agent.yaml): the last place a config is looked for. */
  userConfig: string;
  /** The per-user cache of checked configs (config/config-cache.ts); none when turned off, or running from source. */
  configCache: ConfigCache | undefined;
  /** The standard OTEL_* variables of the OTLP exporter. */
  otel: OtelEnvironment;
}

/** The config cache of this user, for this build; none where there is no user id (Windows) or no build (source). */
function configCacheOf(env: Env, home: string): ConfigCache | undefined {
  const place = defaultConfigCacheDir(env, home);
  const uid = process.getuid?.();
  const build = builtCodeIdentity();
  return place === undefined || uid === undefined || build === undefined ? undefined : { ...place, uid, build };
}

export function readEnvironment(env: Env = process.env): Environment {
  const nonEmpty = (name: string): string | undefined => (env[name] === '' ? undefined : env[name]);
  return {
    env,
    debug: env.LOGBOOK_DEBUG === '1',
    maxRetries: nonEmpty('LOGBOOK_PROVIDER_MAX_RETRIES'),
    scriptLog: nonEmpty('LOGBOOK_SCRIPT_LOG'),
    defaultStateDir: defaultStateDir(env, homedir()),
    config: nonEmpty('LOGBOOK_CONFIG'),
    userConfig: join(env.XDG_CONFIG_HOME?.startsWith('/') ? env.XDG_CONFIG_HOME : join(homedir(), '.config'), 'logbook', 'agent.yaml'),
    configCache: configCacheOf(env, homedir()),
    otel: {
      endpoint: nonEmpty('OTEL_EXPORTER_OTLP_ENDPOINT'),
      tracesEndpoint: nonEmpty('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'),
      headers: nonEmpty('OTEL_EXPORTER_OTLP_HEADERS'),
      tracesHeaders: nonEmpty('OTEL_EXPORTER_OTLP_TRACES_HEADERS'),
      protocol: nonEmpty('OTEL_EXPORTER_OTLP_PROTOCOL'),
      tracesProtocol: nonEmpty('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'),
      serviceName: nonEmpty('OTEL_SERVICE_NAME'),
      disabled: env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true' || env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none',
    },
  };
}
