package org.jrdma.ib.core.spi;

import org.jrdma.ib.core.EventType;
import org.jrdma.ib.core.IbDevice;

/** The driver's handle on a registered device. */
public interface RegisteredDevice {
    IbDevice device();

    /** {@code ib_dispatch_event} for a port event (PORT_ACTIVE, PORT_ERR, LID_CHANGE, GID_CHANGE, ...). */
    void dispatchPortEvent(EventType type, int portNum);

    /** {@code ib_dispatch_event(IB_EVENT_DEVICE_FATAL)}. */
    void dispatchDeviceFatal();

    /**
     * {@code ib_unregister_device}: every client's {@code remove} in reverse registration order,
     * then whatever they left is flushed and destroyed. Idempotent: a second call returns the
     * first call's report.
     */
    UnregisterReport unregister();
}
