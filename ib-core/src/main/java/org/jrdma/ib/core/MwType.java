package org.jrdma.ib.core;

/** {@code enum ib_mw_type}: type 1 windows are bound to a PD, type 2 to a QP. */
public enum MwType {
    TYPE_1, TYPE_2
}
