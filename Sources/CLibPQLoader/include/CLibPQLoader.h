/* CLibPQLoader has no API of its own: hearth_pq_load() and the table it fills are declared
   in CLibPQ's shim.h, which the Swift code imports. */
