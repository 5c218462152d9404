package org.jrdma.ib.core.impl;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;

import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbCore;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.ResourceInfo;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.spi.DeviceListener;
import org.jrdma.ib.core.spi.DeviceRegistrar;
import org.jrdma.ib.core.spi.DeviceRegistration;
import org.jrdma.ib.core.spi.RegisteredDevice;
import org.jrdma.ib.core.spi.UnregisterReport;

/**
 * Linux {@code core/device.c}: the device list, the client list, and the add/remove callbacks that
 * tie them together.
 * <p>One lock ({@code devices_rwsem} and {@code clients_rwsem} folded together) serializes every
 * registration change and every add/remove callback, so a client never sees a callback twice, never
 * misses one, and never gets one after its remove, whatever threads register and unregister. Lookups
 * read an immutable snapshot and take no lock. Callbacks may call back into the registry (the lock is
 * reentrant); they must not wait for another thread that does.
 */
public final class DeviceRegistry implements IbCore, DeviceRegistrar {
    /** {@code IB_DEVICE_NAME_MAX} minus the terminating NUL. */
    static final int NAME_MAX = 63;

    private final ReentrantLock lock = new ReentrantLock();
    private final List<IbClient> clients = new ArrayList<>();
    /** By index; includes devices being unregistered (their names stay reserved). */
    private final TreeMap<Integer, DeviceImpl> devices = new TreeMap<>();
    private volatile List<IbDevice> snapshot = List.of();
    private int lastIndex = -1;

    // ---- clients

    @Override
    public void registerClient(IbClient client) {
        if (client == null || client.name() == null || client.name().isEmpty()) {
            throw new VerbsException(Errno.EINVAL, "registerClient: a client needs a name");
        }
        lock.lock();
        try {
            for (IbClient c : clients) {
                if (c == client) {
                    throw new VerbsException(Errno.EEXIST, "client " + client.name() + " is already registered");
                }
            }
            clients.add(client);
            for (DeviceImpl d : new ArrayList<>(devices.values())) {
                if (d.state == DeviceImpl.State.REGISTERED) {
                    addClient(d, client);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void unregisterClient(IbClient client) {
        lock.lock();
        try {
            if (!clients.remove(client)) {
                throw new VerbsException(Errno.ENOENT, "client " + (client == null ? null : client.name())
                        + " is not registered");
            }
            for (DeviceImpl d : new ArrayList<>(devices.values())) {
                removeClient(d, client);
            }
        } finally {
            lock.unlock();
        }
    }

    List<IbClient> clients() {
        lock.lock();
        try {
            return List.copyOf(clients);
        } finally {
            lock.unlock();
        }
    }

    private static void addClient(DeviceImpl d, IbClient client) {
        d.clientData.put(client, new Object[1]);
        try {
            client.add(d);
            DeviceImpl.LOG.log(System.Logger.Level.DEBUG, () -> d.name() + ": client " + client.name() + " added");
        } catch (RuntimeException | LinkageError e) {
            // as Linux: a client that fails add gets no more calls for this device
            d.clientData.remove(client);
            DeviceImpl.LOG.log(System.Logger.Level.WARNING, "client " + client.name() + " failed to add "
                    + d.name() + "; it will not be called for this device", e);
        }
    }

    /** Calls remove if the client was added, then destroys what it left on the device. */
    private static List<ResourceInfo> removeClient(DeviceImpl d, IbClient client) {
        Object[] slot = d.clientData.get(client);
        if (slot == null) {
            return List.of();
        }
        try {
            client.remove(d, slot[0]);
        } catch (RuntimeException | LinkageError e) {
            DeviceImpl.LOG.log(System.Logger.Level.WARNING, "client " + client.name() + " failed in remove of "
                    + d.name(), e);
        } finally {
            d.clientData.remove(client);
        }
        DeviceImpl.LOG.log(System.Logger.Level.DEBUG, () -> d.name() + ": client " + client.name() + " removed");
        DeviceImpl.Reaped r = d.reap(res -> res.owner == client);
        if (!r.leaked().isEmpty()) {
            DeviceImpl.LOG.log(System.Logger.Level.WARNING, d.name() + ": client " + client.name() + " left "
                    + r.leaked().size() + " resources behind; destroyed them (" + r.flushed()
                    + " work requests flushed): " + r.leaked());
        }
        return r.leaked();
    }

    // ---- devices

    @Override
    public RegisteredDevice register(DeviceRegistration reg) {
        if (reg == null) {
            throw new VerbsException(Errno.EINVAL, "register: registration is null");
        }
        checkName(reg.namePattern(), true);
        if (reg.physPortCnt() < 1 || reg.physPortCnt() > 254) {
            throw new VerbsException(Errno.EINVAL, "register: phys_port_cnt " + reg.physPortCnt() + " out of range 1..254");
        }
        DeviceImpl.checkMandatory(reg.namePattern(), reg.ops());
        DeviceImpl d;
        lock.lock();
        try {
            String name = allocName(reg.namePattern());
            int index = allocIndex();
            d = new DeviceImpl(this, reg, name, index);
            devices.put(index, d);
            lastIndex = index;
            publish();
            // the soak (soak/run) counts these lines per cycle: one per device and add/remove callback
            DeviceImpl.LOG.log(System.Logger.Level.DEBUG, () -> d.name() + ": registered (index " + d.index + ")");
            for (IbClient c : new ArrayList<>(clients)) {
                if (clients.contains(c)) {
                    addClient(d, c);
                }
            }
        } finally {
            lock.unlock();
        }
        DeviceListener l = reg.listener();
        if (l != null) {
            l.registered(d.handle);
        }
        return d.handle;
    }

    UnregisterReport unregisterDevice(DeviceImpl d) {
        lock.lock();
        try {
            if (d.state != DeviceImpl.State.REGISTERED) {
                return d.report;
            }
            d.state = DeviceImpl.State.UNREGISTERING;
            publish();
            List<String> removed = new ArrayList<>();
            List<ResourceInfo> leaked = new ArrayList<>();
            List<IbClient> reverse = new ArrayList<>(clients);
            Collections.reverse(reverse);
            for (IbClient c : reverse) {
                if (d.clientData.containsKey(c)) {
                    removed.add(c.name());
                    leaked.addAll(removeClient(d, c));
                }
            }
            // clients that unregistered meanwhile, or resources with no registered owner
            DeviceImpl.Reaped rest = d.reap(r -> true);
            leaked.addAll(rest.leaked());
            d.state = DeviceImpl.State.GONE;
            devices.remove(d.index);
            d.report = new UnregisterReport(d.name(), List.copyOf(removed), List.copyOf(leaked), rest.flushed());
            DeviceImpl.LOG.log(System.Logger.Level.DEBUG, () -> d.name() + ": unregistered (" + d.report.flushedWorkRequests()
                    + " work requests flushed)");
        } finally {
            lock.unlock();
        }
        DeviceListener l = d.registration.listener();
        if (l != null) {
            l.unregistered(d.report);
        }
        return d.report;
    }

    /** Unregisters every device, then every client (what stopping ib-core does). */
    public void shutdown() {
        lock.lock();
        try {
            for (DeviceImpl d : new ArrayList<>(devices.values())) {
                unregisterDevice(d);
            }
            for (IbClient c : new ArrayList<>(clients)) {
                unregisterClient(c);
            }
        } finally {
            lock.unlock();
        }
    }

    private void publish() {
        List<DeviceImpl> live = new ArrayList<>();
        for (DeviceImpl d : devices.values()) {
            if (d.state == DeviceImpl.State.REGISTERED) {
                live.add(d);
            }
        }
        snapshot = DeviceImpl.sorted(live);
    }

    /** {@code alloc_name}: the lowest free number for a {@code %d} pattern, or the exact name. */
    private String allocName(String pattern) {
        if (!pattern.contains("%d")) {
            if (nameTaken(pattern)) {
                throw new VerbsException(Errno.EEXIST, "device name " + pattern + " is already in use");
            }
            return pattern;
        }
        for (int i = 0; i < 1 << 16; i++) {
            String n = pattern.replace("%d", Integer.toString(i));
            if (!nameTaken(n)) {
                checkName(n, false);
                return n;
            }
        }
        throw new VerbsException(Errno.ENOSPC, "no free device name for " + pattern);
    }

    private boolean nameTaken(String n) {
        for (DeviceImpl d : devices.values()) {
            if (d.name().equals(n)) {
                return true;
            }
        }
        return false;
    }

    /** Indexes grow cyclically ({@code xa_alloc_cyclic}): a new device does not get a recent device's index. */
    private int allocIndex() {
        int i = lastIndex;
        do {
            i = i == Integer.MAX_VALUE ? 0 : i + 1;
        } while (devices.containsKey(i));
        return i;
    }

    /** {@code dev_valid_name} plus the single {@code %d} of a pattern. */
    static void checkName(String n, boolean patternAllowed) {
        String why = null;
        if (n == null || n.isEmpty()) {
            why = "is empty";
        } else if (n.length() > NAME_MAX) {
            why = "is longer than " + NAME_MAX + " characters";
        } else if (n.equals(".") || n.equals("..")) {
            why = "is reserved";
        } else {
            String rest = patternAllowed ? n.replaceFirst("%d", "") : n;
            for (char c : rest.toCharArray()) {
                if (c == '/' || c == ':' || c == '%' || Character.isWhitespace(c) || c < 0x20) {
                    why = "contains '" + c + "'";
                    break;
                }
            }
        }
        if (why != null) {
            throw new VerbsException(Errno.EINVAL, "device name '" + n + "' " + why);
        }
    }

    @Override
    public void renameDevice(IbDevice device, String newName) {
        checkName(newName, false);
        lock.lock();
        try {
            DeviceImpl d = devices.get(device == null ? -1 : device.index());
            if (d == null || d != device || d.state != DeviceImpl.State.REGISTERED) {
                throw new VerbsException(Errno.ENODEV, "rename: device " + (device == null ? null : device.name())
                        + " is not registered");
            }
            if (d.name().equals(newName)) {
                return;
            }
            if (nameTaken(newName)) {
                throw new VerbsException(Errno.EEXIST, "device name " + newName + " is already in use");
            }
            d.rename(newName);
            publish();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public List<IbDevice> devices() {
        return snapshot;
    }

    @Override
    public Optional<IbDevice> device(String name) {
        for (IbDevice d : snapshot) {
            if (d.name().equals(name)) {
                return Optional.of(d);
            }
        }
        return Optional.empty();
    }

    @Override
    public Optional<IbDevice> deviceByIndex(int index) {
        for (IbDevice d : snapshot) {
            if (d.index() == index) {
                return Optional.of(d);
            }
        }
        return Optional.empty();
    }

    @Override
    public DeviceRegistrar registrar() {
        return this;
    }
}
