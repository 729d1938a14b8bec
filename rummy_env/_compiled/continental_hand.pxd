# C types for the compiled twin of rummy_env/rules/continental_hand.py (Cython reads this file beside the twin's
# module name when it compiles the .py source, which stays the pure-Python reference). Only the typed pre-filter
# of fitting_discards is declared.
import cython

@cython.locals(c="long[53]", total=cython.long, k=cython.long, v=cython.long, s=cython.long, b=cython.long,
               r=cython.long, packed=cython.long, bound=cython.long)
cdef bint _hopeless(object solver, object hand) except? -1
