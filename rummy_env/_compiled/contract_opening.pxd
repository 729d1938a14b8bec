# C types for the compiled twin of rummy_env/rules/contract_opening.py (Cython reads this file beside the twin's
# module name when it compiles the .py source, which stays the pure-Python reference). The public functions copy
# the hand (and its presence bits) into C arrays once; the searches under them (``_rest_ok``, ``_opening_groups``,
# ...) are C functions on those arrays, and test the contract still owed by calling the melds twin's search
# (``contract_search``, on ``long*``) directly through the cimport below: no Python call and no list-to-array copy
# per test. Rebuild after an edit here (python setup.py build_ext --inplace); the staleness check covers this file.
import cython

cimport rummy_env._compiled.melds as _melds

cdef long JOKER, NUM_KINDS, NUM_RANKS, MAX_POS
cdef bint _TYPED

@cython.locals(n=cython.long)
cdef long _bits(long x)

@cython.locals(total=cython.long, k=cython.long)
cdef long _tally(long* h, long* presence) except? -1

cpdef list sub_multisets(list avail, long size, bint distinct)

@cython.locals(h="long[53]", presence="long[4]", total=cython.long)
cpdef bint rest_ok(object hand, object used, long jokers, long g, long r, object declared, object rules) except? -1

@cython.locals(k=cython.long, q=cython.long, s=cython.long)
cdef long _take(long* h, long* presence, object used, long jokers, long* saved) except? -1

@cython.locals(k=cython.long, s=cython.long)
cdef void _give(long* h, long* presence, object used, long jokers, long* saved) except *

@cython.locals(saved="long[4]", n=cython.long, ok=cython.bint)
cdef bint _rest_ok(long* h, long total, long* presence, object used, long jokers, long g, long r, object declared,
                   object rules) except? -1

@cython.locals(h="long[53]", presence="long[4]", total=cython.long)
cpdef bint in_some_contract_meld(object hand, long c, long g, long r, object declared, object rules) except? -1

@cython.locals(jokers=cython.long)
cdef bint _in_some_contract_meld(long* h, long total, long* presence, long c, long g, long r, object declared,
                                 object rules) except? -1

@cython.locals(r0=cython.long, suit=cython.long, size=cython.long, distinct=cython.bint, j=cython.long,
               s=cython.long, avail=list, suits=tuple, used=list)
cdef bint _in_some_group(long* h, long total, long* presence, long c, long g, long r, object declared,
                         object rules) except? -1

@cython.locals(rank=cython.long, suit=cython.long, size=cython.long, jokers=cython.long, pos=cython.long,
               low=cython.long, high=cython.long, nj=cython.long, q=cython.long, k=cython.long, used=list)
cdef bint _in_some_run(long* h, long total, long* presence, long c, long g, long r, object declared,
                       object rules) except? -1

@cython.locals(h="long[53]", total=cython.long, presence="long[4]", remaining=cython.long, needs_taken=cython.long,
               out=list)
cpdef list opening_melds(object hand, long hand_size, long g, long r, object declared, object rules, object catalog,
                         long taken=*)

@cython.locals(size=cython.long, jokers=cython.long, distinct=cython.bint, group_ids=dict, r0=cython.long,
               a0=cython.long, a1=cython.long, a2=cython.long, a3=cython.long, j=cython.long, s=cython.long,
               avail=list, suits=tuple, used=list)
cdef void _opening_groups(list out, long* h, long total, long* presence, long g, long r, object declared,
                          object rules, object catalog, long needs_taken) except *

@cython.locals(size=cython.long, jokers=cython.long, full=cython.long, base=cython.long, run_index=dict,
               suit=cython.long, pres=cython.long, low=cython.long, present=cython.long, must=cython.long,
               high=cython.long, sub=cython.long, mask=cython.long, nj=cython.long, i=cython.long, used=list)
cdef void _opening_runs(list out, long* h, long total, long* presence, long g, long r, object declared,
                        object rules, object catalog, long needs_taken) except *

@cython.locals(h="long[53]", presence="long[4]", total=cython.long)
cpdef bint opening_rest_ok(object hand, object used, long jokers, long g, long r, object declared, object rules,
                           long needs_taken) except? -1

@cython.locals(t=cython.long, saved="long[4]", n=cython.long, ok=cython.bint)
cdef bint _opening_rest_ok(long* h, long total, long* presence, object used, long jokers, long g, long r,
                           object declared, object rules, long needs_taken) except? -1

@cython.locals(h="long[53]", presence="long[4]", saved="long[4]", total=cython.long, top=cython.long, lo=cython.long,
               hi=cython.long, mid=cython.long, depth=cython.long, c=cython.long, marks=list)
cpdef list pickup_marks(object hand, list disc, long g, long r, object declared, object rules)

@cython.locals(q=cython.long)
cdef void _add(long* h, long* presence, long k) noexcept

@cython.locals(s=cython.long, top=cython.long, i=cython.long)
cdef void _add_pile(long* h, long* presence, list disc, long depth, long* saved) except *

@cython.locals(s=cython.long, top=cython.long, i=cython.long, k=cython.long)
cdef void _drop_pile(long* h, long* presence, list disc, long depth, long* saved) except *

@cython.locals(saved="long[4]", ok=cython.bint)
cdef bint _makeable_with(long* h, long total, long* presence, list disc, long depth, long g, long r, object declared,
                         object rules) except? -1

@cython.locals(g=cython.long, r=cython.long, h="long[53]", run_min=cython.long, k=cython.long, refused=cython.bint)
cpdef object final_layout(object hand, object contract, object rules, object keep=*, long banned=*)
