import { describe, expect, it } from 'vitest';
import { planAdoption } from '../../src/supervisor/adoption.js';
import { ownerAlive, OWNER_LEASE_MS } from '../../src/supervisor/owner.js';

describe('planAdoption', () => {
  it.each([
    ['a stopping loop is finished', 'stopping', 0, 3, { action: 'finish' }],
    ['a suspended loop resumes without counting', 'suspended', 2, 3, { action: 'restart', restartCount: 2 }],
    ['a running loop counts one restart', 'running', 0, 3, { action: 'restart', restartCount: 1 }],
    ['a stalled loop at the limit fails', 'stalled', 3, 3, { action: 'fail', restartCount: 4 }],
    ['limit 0 fails at once', 'running', 0, 0, { action: 'fail', restartCount: 1 }],
  ] as const)('%s', (_, status, restartCount, limit, plan) => {
    expect(planAdoption({ status, restartCount }, limit)).toEqual(plan);
  });
});

describe('ownerAlive', () => {
  const now = Date.parse('2026-11-22T05:00:00Z');
  const here = { host: 'box', now, pidAlive: (pid: number) => pid === 42 };
  it.each([
    ['a live pid here', { ownerPid: 42, ownerHost: 'box', ownerHeartbeatAt: null }, true],
    ['a dead pid here, whatever its heartbeat', { ownerPid: 7, ownerHost: 'box', ownerHeartbeatAt: new Date(now).toISOString() }, false],
    ['another host with a fresh lease', { ownerPid: 7, ownerHost: 'other', ownerHeartbeatAt: new Date(now - OWNER_LEASE_MS + 1000).toISOString() }, true],
    ['another host with a stale lease', { ownerPid: 42, ownerHost: 'other', ownerHeartbeatAt: new Date(now - OWNER_LEASE_MS).toISOString() }, false],
    ['no owner at all', { ownerPid: null, ownerHost: null, ownerHeartbeatAt: null }, false],
  ] as const)('%s', (_, row, alive) => {
    expect(ownerAlive(row, here)).toBe(alive);
  });
});
