import { LOCAL_HOST_CELL, rowState, stateCell, type StateCell } from './cells.js';
import type { DeckRow } from './deck.js';
import { cellWidth } from './layout.js';
import { printable } from '../format/event.js';
import { countGroups, countText, type GroupCount, type StateDef } from './states.js';

/** Each row's state, as its STATE cell shows it. */
export function rowStates(rows: readonly DeckRow[]): StateDef[] {
  return rows.map(rowState);
}

/** The rows that are modules: a host's own row (why that host cannot be read, or that it has none) is not one. */
export function moduleRows(rows: readonly DeckRow[]): DeckRow[] {
  return rows.filter((r) => !r.hostIssue);
}

/**
 * The header's counts: every group with a module in it, in the order a person acts on them
 * (src/deck/states.ts). Every module is in exactly one group, so they add up to the modules
 * (a stale loop of a host that does not answer counts as `~ stale`; a host's own row not at all).
 */
export function stateCounts(rows: readonly DeckRow[]): GroupCount[] {
  return countGroups(rowStates(moduleRows(rows)));
}

/** One host's part of the header, when the dashboard shows several (src/hosts/). */
export interface HostCount {
  host: string;
  /** Its modules' states (its stale loops included). */
  states: StateDef[];
  /** Why the host cannot be read, when it cannot. */
  issue?: StateCell | undefined;
}

/** Per host, in the table's order (this machine first): its modules' states, and its trouble. */
export function hostCounts(rows: readonly DeckRow[]): HostCount[] {
  const by = new Map<string, DeckRow[]>();
  for (const r of rows) {
    const host = r.host ?? LOCAL_HOST_CELL;
    const list = by.get(host) ?? [];
    list.push(r);
    by.set(host, list);
  }
  return [...by].map(([host, list]) => {
    const own = list.find((r) => r.hostIssue && r.hostIssue.kind !== 'empty' && r.hostIssue.kind !== 'connecting');
    return { host, states: rowStates(moduleRows(list)), ...(own ? { issue: stateCell(own) } : {}) };
  });
}

/**
 * A host's part as drawn: its counts (`gpu ▶2`), or, for a host that cannot be read, its
 * trouble instead (`box ✗ no answer`, compact `box✗`): its loops are stale, counted in the totals.
 */
export interface HostPart {
  host: string;
  counts: { text: string; count: GroupCount }[];
  issue?: { text: string; cell: StateCell } | undefined;
}

export interface HeaderParts {
  title: string;
  counts: { text: string; count: GroupCount }[];
  /** Several hosts: each one's part after the totals (compact: only the hosts in trouble). */
  hosts: HostPart[];
  tail: string;
}

function hostParts(hosts: readonly HostCount[], compact: boolean): HostPart[] {
  return hosts.filter((h) => !compact || h.issue).map((h) => ({
    host: printable(h.host),
    counts: h.issue ? [] : countGroups(h.states).map((c) => ({ text: countText(c, true), count: c })),
    ...(h.issue ? { issue: { text: compact ? h.issue.glyph : ` ${h.issue.glyph} ${h.issue.word}`, cell: h.issue } } : {}),
  }));
}

/**
 * The header: `autodeck · host vm · 7 modules  ? 1 needs you  ▶ 3 running`, then with
 * several hosts each one's part (`  │ local ▶1 gpu ▶2 box ✗ no answer`); compact (a side
 * pane) `autodeck ?1 ▶3 │ box✗ · vm`, the host last so a narrow pane cuts it first.
 * Components colour the counts; the words are these.
 */
export function headerOf(title: string, host: string, states: readonly StateDef[], compact: boolean, hosts: readonly HostCount[] = []): HeaderParts {
  const counts = countGroups(states).map((c) => ({ text: countText(c, compact), count: c }));
  // Claude Code's own sessions are rows too, counted apart from the modules
  const claude = states.filter((s) => s.source === 'claude').length;
  const n = states.length - claude;
  const modules = `${n} module${n === 1 ? '' : 's'}${claude > 0 ? ` · ${claude} Claude Code session${claude === 1 ? '' : 's'}` : ''}`;
  const perHost = hostParts(hosts, compact);
  return compact
    ? { title, counts, hosts: perHost, tail: ` · ${host}` }
    : { title: `${title} · host ${host} · ${modules}`, counts, hosts: perHost, tail: '' };
}

/**
 * The header for a terminal `width` wide: the full words when they fit, else the compact
 * form (always in a side pane), so that no count is cut off the end of the line.
 */
export function headerFitting(title: string, host: string, states: readonly StateDef[], width: number, side: boolean, hosts: readonly HostCount[] = []): { parts: HeaderParts; compact: boolean } {
  if (!side) {
    const full = headerOf(title, host, states, false, hosts);
    if (cellWidth(headerText(full, false)) <= width) return { parts: full, compact: false };
  }
  return { parts: headerOf(title, host, states, true, hosts), compact: true };
}

/** The header of the dashboard's rows: the modules counted (a host's own row is none), per host when there are several. */
export function headerParts(title: string, host: string, rows: readonly DeckRow[], width: number, side: boolean): { parts: HeaderParts; compact: boolean } {
  const hosts = rows.some((r) => r.host !== undefined) ? hostCounts(rows) : [];
  return headerFitting(title, host, rowStates(moduleRows(rows)), width, side, hosts);
}

/** The separator before the hosts' parts. */
export function hostsSeparator(compact: boolean): string {
  return compact ? ' │' : '  │';
}

/** A host's part as plain text: ` gpu ▶2`, ` box ✗ no answer`. */
export function hostPartText(h: HostPart): string {
  return ` ${h.host}${h.issue ? h.issue.text : h.counts.map((c) => ` ${c.text}`).join('')}`;
}

/** The header as plain text (as a screen capture reads it, before a filter's note). */
export function headerText(p: HeaderParts, compact: boolean): string {
  const hosts = p.hosts.length > 0 ? `${hostsSeparator(compact)}${p.hosts.map(hostPartText).join('')}` : '';
  return `${p.title}${p.counts.map((c) => `${compact ? ' ' : '  '}${c.text}`).join('')}${hosts}${p.tail}`;
}

export { countText };
