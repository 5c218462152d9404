package org.jrdma.ib.core;

/** {@code struct ib_cq_init_attr} plus the handlers {@code ib_create_cq} takes. */
public final class CqInitAttr {
    private int cqe = 1;
    private int compVector;
    private CompletionHandler compHandler;
    private EventHandler eventHandler;
    private Object context;

    /** Minimum number of entries; the driver may round up. */
    public int cqe() { return cqe; }
    public CqInitAttr cqe(int v) { cqe = v; return this; }
    public int compVector() { return compVector; }
    public CqInitAttr compVector(int v) { compVector = v; return this; }
    /** Called when the CQ is armed with {@link CompletionQueue#reqNotify} and a completion arrives. */
    public CompletionHandler compHandler() { return compHandler; }
    public CqInitAttr compHandler(CompletionHandler v) { compHandler = v; return this; }
    /** Receives CQ_ERR (overrun). */
    public EventHandler eventHandler() { return eventHandler; }
    public CqInitAttr eventHandler(EventHandler v) { eventHandler = v; return this; }
    public Object context() { return context; }
    public CqInitAttr context(Object v) { context = v; return this; }
}
