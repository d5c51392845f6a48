/**
 * The one way into a loop from the world outside it. Every callback that reaches a loop
 * (its file watcher and timers, its agent's exit, its heartbeat and tick, the supervisor's
 * and the dashboard's calls) runs through its `enter`, named for where it came from.
 */
export type LoopEntry = <T>(where: string, fn: () => T) => T | undefined;
