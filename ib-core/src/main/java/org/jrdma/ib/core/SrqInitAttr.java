package org.jrdma.ib.core;

/** {@code struct ib_srq_init_attr}. */
public final class SrqInitAttr {
    private SrqAttr attr = new SrqAttr();
    private EventHandler eventHandler;
    private Object context;

    public SrqAttr attr() { return attr; }
    public SrqInitAttr attr(SrqAttr v) { attr = v; return this; }
    /** Receives SRQ_LIMIT_REACHED and SRQ_ERR. */
    public EventHandler eventHandler() { return eventHandler; }
    public SrqInitAttr eventHandler(EventHandler v) { eventHandler = v; return this; }
    public Object context() { return context; }
    public SrqInitAttr context(Object v) { context = v; return this; }
}
