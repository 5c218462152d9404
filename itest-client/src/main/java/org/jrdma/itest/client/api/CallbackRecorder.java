package org.jrdma.itest.client.api;

import java.util.List;
import java.util.Map;

/**
 * The callbacks the {@code itest-client} IbClient received. The record is kept for the life of the
 * bundle's class loader, not of the component: a recorder obtained while the bundle was active still
 * answers after the bundle was stopped and restarted, and sees the new component's callbacks too.
 */
public interface CallbackRecorder {
    /** The client's {@code IbClient.name()}. */
    String CLIENT_NAME = "itest-client";

    /** Every callback since the last {@link #clear()}, as {@code "add tdev0"} / {@code "remove tdev0"}. */
    List<String> events();

    /** The same, with index, thread and client generation. */
    List<CallbackEvent> details();

    /** Forgets the events (not the violations, not the attachments). */
    void clear();

    /**
     * Broken promises seen so far: a callback after the device's remove, a second add, a remove
     * without add, overlapping callbacks, client data that is not what add set, a failed resource
     * allocation, a component deactivated while still attached.
     */
    List<String> violations();

    /** How many times the client component was activated so far (the generation of the newest one). */
    int generation();

    /** Devices the live client is attached to now (added, not yet removed): name to number of adds it got for that device object. */
    Map<String, Integer> attached();
}
