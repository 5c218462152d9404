package org.jrdma.ib.core;

import java.util.List;

/** {@code struct ib_device}, as a ULP sees it. */
public interface IbDevice {
    /** Current name ({@code rxe0}); may change with {@link IbCore#renameDevice}. */
    String name();

    /** Registry index, stable for the life of the registration, never reused while registered. */
    int index();

    /** The driver that provides the device ({@code rxe}, {@code loopback}). */
    String driverName();

    NodeType nodeType();

    long nodeGuid();

    /** Ports are numbered 1..physPortCnt. */
    int physPortCnt();

    /**
     * False from the moment unregistration begins (clients' {@code remove} already sees false; the
     * device still works during remove). Once it has finished, every verb fails with ENODEV.
     */
    boolean isRegistered();

    DeviceAttr queryDevice();

    PortAttr queryPort(int portNum);

    Gid queryGid(int portNum, int index);

    /** The P_Key at {@code index} of the port's table. */
    int queryPkey(int portNum, int index);

    LinkLayer linkLayer(int portNum);

    /**
     * {@code ib_modify_port}: capability bits, and the subnet attributes an SMA assigns (LID, SM LID,
     * LMC, port state). The driver raises the port events that follow (LID_CHANGE, SM_CHANGE,
     * PORT_ACTIVE, PORT_ERR).
     *
     * @throws VerbsException EOPNOTSUPP if the driver cannot; EINVAL for a bad value or state transition
     * @since 1.3
     */
    default void modifyPort(int portNum, PortModify modify) {
        throw new VerbsException(Errno.EOPNOTSUPP, "modifyPort is not supported by " + name());
    }

    /** The port's hardware counters ({@code rdma statistic show link DEV/PORT}), in the driver's order; empty if none. */
    java.util.Map<String, Long> queryHwStats(int portNum);

    /** {@code ib_device_get_netdev}: the name of the port's net device ({@code rdma link}), or null if it has none. */
    String getNetdev(int portNum);

    /** {@code ib_set_client_data}: only for a client that was added to this device. */
    void setClientData(IbClient client, Object data);

    Object getClientData(IbClient client);

    /** {@code ib_register_event_handler}: device and port events. Returns what unregisters it. */
    AutoCloseable registerEventHandler(EventHandler handler);

    /** {@code ib_alloc_pd}, owned by {@code owner}. */
    ProtectionDomain allocPd(IbClient owner);

    /** {@code ib_create_cq}, owned by {@code owner}. */
    CompletionQueue createCq(IbClient owner, CqInitAttr attr);

    /** What ib-core tracks on this device ({@code rdma resource show}). */
    List<ResourceInfo> resources();
}
