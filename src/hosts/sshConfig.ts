import type { Settings } from '../config/schema.js';
import { CliError, EXIT } from '../commands/context.js';
import { ControlDirError, controlDirFor, ensureControlDir } from './controlDir.js';
import { SSH_DEFAULTS, type SshConfig } from './ssh.js';

/** How this process runs ssh, from the settings; the control folder made (or checked) now. */
export function sshConfigOf(settings: Pick<Settings, 'sshCommand'>, env: NodeJS.ProcessEnv): SshConfig {
  let controlDir: string;
  try {
    controlDir = ensureControlDir(controlDirFor(env, process.getuid?.()));
  } catch (err) {
    if (err instanceof ControlDirError) throw new CliError(`autodeck: ${err.message}`, EXIT.usage);
    throw err;
  }
  return { command: settings.sshCommand, controlDir, ...SSH_DEFAULTS };
}
