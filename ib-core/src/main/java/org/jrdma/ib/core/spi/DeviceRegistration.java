package org.jrdma.ib.core.spi;

import java.util.Objects;

import org.jrdma.ib.core.NodeType;

/**
 * What a driver registers: the ops table and the identity of the device ({@code ib_alloc_device}
 * plus the fields a driver sets before {@code ib_register_device}). Publish one as an OSGi service
 * and ib-core registers the device (whiteboard); unregistering the service unregisters the device.
 */
public final class DeviceRegistration {
    private final String namePattern;
    private final String driverName;
    private final DeviceOps ops;
    private NodeType nodeType = NodeType.CA;
    private long nodeGuid;
    private int physPortCnt = 1;
    private DeviceListener listener;

    /**
     * @param namePattern an exact name ({@code rxe0}) or a pattern with one {@code %d}
     *                    ({@code rxe%d}: the lowest free number)
     * @param driverName  the driver's name ({@code rxe}, {@code loopback})
     */
    public DeviceRegistration(String namePattern, String driverName, DeviceOps ops) {
        this.namePattern = Objects.requireNonNull(namePattern, "namePattern");
        this.driverName = Objects.requireNonNull(driverName, "driverName");
        this.ops = Objects.requireNonNull(ops, "ops");
    }

    public String namePattern() { return namePattern; }
    public String driverName() { return driverName; }
    public DeviceOps ops() { return ops; }
    public NodeType nodeType() { return nodeType; }
    public DeviceRegistration nodeType(NodeType v) { nodeType = v; return this; }
    public long nodeGuid() { return nodeGuid; }
    public DeviceRegistration nodeGuid(long v) { nodeGuid = v; return this; }
    public int physPortCnt() { return physPortCnt; }
    public DeviceRegistration physPortCnt(int v) { physPortCnt = v; return this; }
    /** Told when the device is registered and unregistered (needed with whiteboard registration). */
    public DeviceListener listener() { return listener; }
    public DeviceRegistration listener(DeviceListener v) { listener = v; return this; }
}
