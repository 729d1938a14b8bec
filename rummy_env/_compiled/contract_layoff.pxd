# C types for the compiled twin of rummy_env/rules/contract_layoff.py (Cython reads this file beside the twin's
# module name when it compiles the .py source, which stays the pure-Python reference): only the engine's lay-off
# listing (``layoff_ids``, asked at every act decision of a seat already down) gets C integers for its loop.
# Rebuild after an edit here (python setup.py build_ext --inplace); the staleness check covers this file.
import cython

@cython.locals(n=cython.long, max_melds=cython.long, slots=cython.long, base=cython.long, owner=cython.long,
               first=cython.long, idx=cython.long, kind=cython.long, end=cython.long, out=list)
cpdef list layoff_ids(object hand, object seat_melds, long p, bint own_only, object lay, object rules, long taken,
                      bint spare, bint spare_taken, object follows=*)
