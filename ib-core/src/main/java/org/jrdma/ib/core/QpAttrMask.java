package org.jrdma.ib.core;

/** {@code enum ib_qp_attr_mask}: which fields of a {@link QpAttr} a modify carries. */
public enum QpAttrMask {
    STATE, CUR_STATE, EN_SQD_ASYNC_NOTIFY, ACCESS_FLAGS, PKEY_INDEX, PORT, QKEY, AV, PATH_MTU,
    TIMEOUT, RETRY_CNT, RNR_RETRY, RQ_PSN, MAX_QP_RD_ATOMIC, ALT_PATH, MIN_RNR_TIMER, SQ_PSN,
    MAX_DEST_RD_ATOMIC, PATH_MIG_STATE, CAP, DEST_QPN
}
