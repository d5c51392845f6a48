/** Why a host's own row is shown: it cannot be read, or it has nothing else to show. */
export type HostIssueKind = 'connecting' | 'unreachable' | 'no-autodeck' | 'too-old' | 'error' | 'empty';

export interface HostIssue {
  kind: HostIssueKind;
  /** One line: the ssh error's last line, what the probe found, or what the host has. */
  message: string;
}

/** A host that cannot be read: its last known loops are shown stale. */
export const isFailure = (kind: HostIssueKind): boolean => kind === 'unreachable' || kind === 'no-autodeck' || kind === 'too-old' || kind === 'error';
