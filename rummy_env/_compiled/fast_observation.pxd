# C types for the compiled twin of rummy_env/encoding/fast.py (Cython's "augmenting .pxd": it sits beside the twin's
# module name, rummy_env._compiled.fast_observation, and types the pure-Python source without changing it).
# Only C integers, doubles and a float32 memoryview are declared: every value keeps its Python meaning (Python
# modulo and division semantics: the cdivision directive stays off). Rebuild after an edit here
# (python setup.py build_ext --inplace); the twin's staleness check covers fast.py.
import cython

cdef Py_ssize_t NUM_KINDS, JOKER
cdef Py_ssize_t MELD_FEATURES, MELD_GROUP, MELD_RUN, MELD_NATURALS, MELD_RUN_FILLED, MELD_RUN_JOKERS
cdef Py_ssize_t MELD_GROUP_RANK, MELD_GROUP_JOKERS

@cython.locals(out="float[::1]", empty=cython.bint, owner=Py_ssize_t, row=Py_ssize_t, filled=Py_ssize_t,
               jokers=Py_ssize_t, i=Py_ssize_t, k=Py_ssize_t, nj=Py_ssize_t)
cpdef object table_segment(object seat_melds, Py_ssize_t me, Py_ssize_t n, Py_ssize_t max_melds, Py_ssize_t slots)

# the engine's card rows, piles, sizes, flags and scores are lists: read as lists (an item read without a type
# dispatch); a state holding another sequence type there is refused with TypeError by the twin
@cython.locals(k=Py_ssize_t, c=Py_ssize_t, size=Py_ssize_t, i=Py_ssize_t)
cdef void _cards(float[::1] out, Py_ssize_t h, Py_ssize_t dc, Py_ssize_t dt, Py_ssize_t ps, list hand, list disc,
                 Py_ssize_t stock_size, double shoe_size) except *

cdef bint _TYPED

cdef void _clear(object arr, float[::1] out) except *

cdef void _copy(float[::1] out, Py_ssize_t at, float[::1] seg, Py_ssize_t start, Py_ssize_t length) except *

@cython.locals(i=Py_ssize_t, at=Py_ssize_t, k=Py_ssize_t, c=Py_ssize_t, row=list)
cdef void _known(float[::1] out, Py_ssize_t kn, list known, Py_ssize_t me, Py_ssize_t n) except *

@cython.locals(n=Py_ssize_t, h=Py_ssize_t, dc=Py_ssize_t, dt=Py_ssize_t, ps=Py_ssize_t, tb=Py_ssize_t,
               hs=Py_ssize_t, op=Py_ssize_t, sc=Py_ssize_t, rd=Py_ssize_t, ct=Py_ssize_t, ph=Py_ssize_t,
               ac=Py_ssize_t, of=Py_ssize_t, lb=Py_ssize_t, ol=Py_ssize_t, td=Py_ssize_t, tu=Py_ssize_t,
               kn=Py_ssize_t, mp=Py_ssize_t, rnd=Py_ssize_t, i=Py_ssize_t, p=Py_ssize_t, active=Py_ssize_t,
               this_turn=cython.bint, block=Py_ssize_t, segv="float[::1]", score=cython.double, s=cython.double,
               high=cython.double, at=Py_ssize_t, t=cython.double, shoe_size=cython.double,
               turn_cap=cython.double, highs=list, phase_index=dict, cache=list, sizes=list, opened=list, d=dict,
               scores=list, size=Py_ssize_t, rs=tuple, contract=tuple)
cpdef void encode_contract_state(object obs, object st, Py_ssize_t seat, object arr, float[::1] out) except *

@cython.locals(n=Py_ssize_t, h=Py_ssize_t, dc=Py_ssize_t, dt=Py_ssize_t, ps=Py_ssize_t, kn=Py_ssize_t,
               ft=Py_ssize_t, bal=Py_ssize_t, dl=Py_ssize_t, ph=Py_ssize_t, ac=Py_ssize_t, td=Py_ssize_t,
               tu=Py_ssize_t, rnd=Py_ssize_t, i=Py_ssize_t, p=Py_ssize_t, score=cython.double, b=cython.double,
               j=Py_ssize_t, mag=cython.double, high=cython.double, last=Py_ssize_t, at=Py_ssize_t,
               t=cython.double, shoe_size=cython.double, turn_cap=cython.double, highs=list,
               phase_index=dict, turns_taken=list, scores=list, taken=Py_ssize_t, rs=tuple)
cpdef void encode_continental_state(object obs, object st, Py_ssize_t seat, object arr, float[::1] out) except *

@cython.locals(a=Py_ssize_t)
cpdef void write_mask(unsigned char[::1] row, object legal) except *

@cython.locals(view="float[::1]")
cpdef object float_view(object row)

@cython.locals(view="unsigned char[::1]")
cpdef object byte_view(object row)
