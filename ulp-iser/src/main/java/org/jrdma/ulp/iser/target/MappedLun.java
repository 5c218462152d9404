package org.jrdma.ulp.iser.target;

/** {@code acls/INITIATOR/mapped_lunN}: the initiator sees TPG LUN {@code tpgLun} as LUN {@code mappedLun}. */
public record MappedLun(int mappedLun, int tpgLun, boolean writeProtect) {
}
