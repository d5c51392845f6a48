// node alloc-summary.mjs X.heapprofile [N] [seconds]: top N functions by bytes allocated (self, total), MB/s.
