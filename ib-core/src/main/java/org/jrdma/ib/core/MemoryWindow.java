package org.jrdma.ib.core;

/** {@code struct ib_mw}: a remote-access window onto an MR, bound with a BIND_MW work request. */
public interface MemoryWindow extends VerbsObject {
    ProtectionDomain pd();

    MwType type();

    /** The current rkey; dead after invalidation. */
    int rkey();

    void dealloc();
}
