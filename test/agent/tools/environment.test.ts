/** The one environment rule of command tools and MCP stdio servers. */
import { DEFAULT_INHERITED_ENV_VARS } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { INHERITED_VARIABLES, toolEnvironment } from '../../../src/agent/tools/environment.js';

describe('the environment of a tool', () => {
  it('inherits the MCP SDK’s list for the servers it starts, and no more', () => {
    expect([...INHERITED_VARIABLES]).toEqual(DEFAULT_INHERITED_ENV_VARS);
  });

  it('is the inherited variables that are set, then the named ones with ${NAME} read', () => {
    const env = { PATH: '/bin', HOME: '/h', TERM: '() { :; }', ANTHROPIC_API_KEY: 'sk', OPENAI_API_KEY: 'sk2', SECRET: 's3' };
    expect(toolEnvironment(env, {}, 'x')).toEqual({ PATH: '/bin', HOME: '/h' });
    expect(toolEnvironment(env, { KEY: '${ANTHROPIC_API_KEY}', PATH: '/opt/bin:${PATH}' }, 'x')).toEqual({
      PATH: '/opt/bin:/bin',
      HOME: '/h',
      KEY: 'sk',
    });
  });

  it('refuses a reference to an unset variable, naming the setting', () => {
    expect(() => toolEnvironment({}, { T: 'a ${NOPE}' }, 'tool "t": env')).toThrow(
      'tool "t": env.T names the environment variable NOPE, which is not set; set it, or change agent.yaml',
    );
  });
});
