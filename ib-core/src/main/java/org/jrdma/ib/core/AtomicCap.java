package org.jrdma.ib.core;

/** {@code enum ib_atomic_cap}: how atomic operations are atomic. */
public enum AtomicCap {
    /** No atomics. */
    NONE,
    /** Atomic with respect to other atomics of this device. */
    HCA,
    /** Atomic with respect to every access, including the CPU's. */
    GLOB
}
