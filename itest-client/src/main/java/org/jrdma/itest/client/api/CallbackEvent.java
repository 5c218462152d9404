package org.jrdma.itest.client.api;

/**
 * One callback the client received.
 *
 * @param kind       {@code add} or {@code remove}
 * @param device     the device's name at the time
 * @param index      the device's registry index
 * @param thread     the thread that made the call
 * @param generation which activation of the client component got it (1, 2, ... across bundle restarts)
 */
public record CallbackEvent(String kind, String device, int index, String thread, int generation) {
    /** {@code "add tdev0"}: what {@link CallbackRecorder#events()} lists. */
    public String shortForm() {
        return kind + " " + device;
    }
}
