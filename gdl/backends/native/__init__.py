"""The native tier: the rules and the search loops as generated C, compiled by the system
compiler and called through ctypes (emit: IR → C; build: compile and cache; runtime: the calls;
attach: a loaded game gets its native rules, or a one-line note saying why not)."""
