package org.jrdma.sw.rdmavt;

/** Why a memory access was refused: the caller maps it to a local or a remote completion status. */
public enum MemError {
    NONE,
    /** No object has this key, or its state is not VALID. */
    BAD_KEY,
    /** The key belongs to another PD (or, for a type 2 MW, another QP). */
    BAD_PD,
    /** The range is not inside the region or window. */
    OUT_OF_BOUNDS,
    /** The region or window does not grant the access. */
    NO_ACCESS,
    /** Atomic address not 8-byte aligned. */
    MISALIGNED
}
