// node cpu-summary.mjs X.cpuprofile [N]: top N functions by self and total time, in ms and % of a core.
