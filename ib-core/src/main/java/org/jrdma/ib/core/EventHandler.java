package org.jrdma.ib.core;

/** Receives async events ({@code ib_event_handler}). Runs on a driver thread: must not block. */
@FunctionalInterface
public interface EventHandler {
    void handle(AsyncEvent event);
}
