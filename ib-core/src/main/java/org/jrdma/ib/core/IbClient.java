package org.jrdma.ib.core;

/**
 * {@code struct ib_client}: a ULP that wants to hear about devices. {@link #add} is called once for
 * every device, whether it was there before the client registered or came later; {@link #remove}
 * once for each device that was added, when the device or the client goes away. Callbacks for one
 * client never overlap, and none comes after the matching remove.
 * <p>In OSGi, publishing an {@code IbClient} service is enough: ib-core registers it (whiteboard)
 * and unregisters it when the service goes away.
 */
public interface IbClient {
    /** A short name, as Linux's {@code ib_client.name}; shown as the owner in {@code rdma resource}. */
    String name();

    /**
     * A device is here. Use {@link IbDevice#setClientData} to keep per-device state. If this
     * throws, the client is not attached to the device and gets no {@code remove} for it.
     */
    void add(IbDevice device);

    /**
     * The device is going away, or the client is being unregistered. The device still works during
     * this call: move QPs to ERR, drain, destroy what this client owns. Whatever is left afterwards
     * is destroyed by ib-core and reported as a leak.
     */
    void remove(IbDevice device, Object clientData);
}
