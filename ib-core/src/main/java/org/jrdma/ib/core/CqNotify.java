package org.jrdma.ib.core;

/** {@code enum ib_cq_notify_flags}: arm for the next completion, or the next solicited one. */
public enum CqNotify {
    NEXT_COMP, SOLICITED
}
