# C types for the compiled twin of rummy_env/rules/contract_layoff.py (Cython reads this file beside the twin's
# module name when it compiles the .py source, which stays the pure-Python reference): only the engine's lay-off
# listing (``layoff_ids``, asked at every act decision of a seat already down) and ``layoff_reaches`` get C
# integers for their loops.
# Rebuild after an edit here (python setup.py build_ext --inplace); the staleness check covers this file.
import cython

@cython.locals(n=cython.long, max_melds=cython.long, slots=cython.long, base=cython.long, owner=cython.long,
               first=cython.long, idx=cython.long, kind=cython.long, end=cython.long, out=list)
cpdef list layoff_ids(object hand, object seat_melds, long p, bint own_only, object lay, object rules, long taken,
                      bint spare, bint spare_taken, object follows=*)

@cython.locals(suit=cython.long, r0=cython.long, jokers=cython.long, low=cython.long, high=cython.long,
               base=cython.long, t=cython.long, pos=cython.long, first=cython.long, last=cython.long,
               missing=cython.long, q=cython.long)
cpdef bint layoff_reaches(object hand, object table, long c, object rules) except? -1
