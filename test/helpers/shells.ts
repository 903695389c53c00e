/**
 * The shells the completion tests source their scripts in: bash with the
 * bash-completion package, zsh and fish, as Debian installs them. Outside CI a
 * missing one skips its tests with a message saying how to install it; in CI
 * (CI=true) it is an error, so a CI run can never pass by skipping them.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Where Debian's bash-completion keeps the functions completion scripts call. */
export const BASH_COMPLETION = '/usr/share/bash-completion/bash_completion';

const PACKAGES: Record<string, string> = { bash: 'bash bash-completion', zsh: 'zsh', fish: 'fish' };

const readable = (path: string, mode = constants.R_OK): boolean => {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
};

/** The shell's binary on PATH, or null. */
export function shellPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    if (readable(join(dir, name), constants.X_OK)) return join(dir, name);
  }
  return null;
}

/** Whether the tests needing `shell` (and, for bash, bash-completion) run here. */
export function shellTestsEnabled(shell: 'bash' | 'zsh' | 'fish'): boolean {
  const present = shellPath(shell) !== null && (shell !== 'bash' || readable(BASH_COMPLETION));
  if (present) return true;
  const hint = `install it with \`apt-get install -y ${PACKAGES[shell]}\``;
  if (process.env.CI === 'true') throw new Error(`${shell} completion cannot be tested but CI=true: ${hint}`);
  console.warn(`skipping the ${shell} completion tests: ${hint}`);
  return false;
}
