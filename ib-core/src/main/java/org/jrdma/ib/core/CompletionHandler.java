package org.jrdma.ib.core;

/** {@code ib_comp_handler}: an armed CQ got a completion. Runs on a driver thread: poll, re-arm, return. */
@FunctionalInterface
public interface CompletionHandler {
    void onCompletion(CompletionQueue cq);
}
