package org.jrdma.ib.core;

/** {@code enum ib_mr_type} for {@link ProtectionDomain#allocMr}. */
public enum MrType {
    /** A fast-registration MR: mapped later with {@link MemoryRegion#map} and a REG_MR work request. */
    MEM_REG
}
