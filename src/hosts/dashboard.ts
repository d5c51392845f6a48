import type { Settings } from '../config/schema.js';
import { controlKeyByte } from '../config/kinds.js';
import { tmuxKeyName } from '../attach/keys.js';
import type { DashboardModel } from '../deck/model.js';
import { HostsModel } from './model.js';
import { sshConfigOf } from './sshConfig.js';
import { ownVersion } from '../ownPackage.js';

/**
 * The dashboard's model: this machine's alone, or, when the settings name other hosts (or
 * `--no-local`), this machine's and theirs in one table.
 */
export function withHosts<M extends DashboardModel & { close(): void }>(local: M, settings: Settings, env: NodeJS.ProcessEnv): M | HostsModel {
  if (settings.hosts.length === 0 && settings.local) return local;
  return new HostsModel(local, settings.hosts, {
    ssh: sshConfigOf(settings, env),
    baseMs: settings.hostPollSeconds * 1000,
    showLocal: settings.local,
    localVersion: ownVersion(),
    detachKey: tmuxKeyName(controlKeyByte(settings.detachKey)),
  });
}
