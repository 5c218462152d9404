package org.jrdma.ib.core.impl;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jrdma.ib.core.Errno;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.ResourceInfo;
import org.jrdma.ib.core.ResourceType;
import org.jrdma.ib.core.VerbsException;
import org.jrdma.ib.core.VerbsObject;

/**
 * What every tracked resource shares (restrack plus the {@code usecnt} of {@code struct ib_pd} and
 * friends): owner, id, validity, and the resources that use it, so a destroy that would leave a
 * dangling user is refused with EBUSY and a precise list.
 */
abstract class AbstractResource implements VerbsObject {
    final DeviceImpl device;
    final IbClient owner;
    final ResourceType type;
    private final List<AbstractResource> uses = new ArrayList<>(4);
    final Set<AbstractResource> users = ConcurrentHashMap.newKeySet();
    volatile boolean valid = true;
    int id;

    AbstractResource(DeviceImpl device, IbClient owner, ResourceType type) {
        this.device = device;
        this.owner = owner;
        this.type = type;
    }

    /** Records that this resource uses {@code parent} (the parent's use count goes up). */
    void uses(AbstractResource parent) {
        if (parent != null) {
            uses.add(parent);
            parent.users.add(this);
        }
    }

    @Override
    public IbDevice device() {
        return device;
    }

    @Override
    public IbClient owner() {
        return owner;
    }

    @Override
    public int id() {
        return id;
    }

    @Override
    public boolean isValid() {
        return valid && device.isAlive();
    }

    String label() {
        return type + " " + id;
    }

    /** Fails unless this resource and its device are usable. Cheap: two volatile reads. */
    final void checkValid() {
        if (!valid) {
            throw new VerbsException(Errno.EINVAL, device.name() + ": " + label() + " was destroyed");
        }
        device.checkAlive();
    }

    /** Fails if this resource belongs to another device. */
    final void checkSameDevice(AbstractResource other, String what) {
        if (other.device != device) {
            throw new VerbsException(Errno.EINVAL, what + " belongs to device " + other.device.name()
                    + ", not " + device.name());
        }
    }

    final void checkNotInUse() {
        if (users.isEmpty()) {
            return;
        }
        Map<ResourceType, Integer> count = new EnumMap<>(ResourceType.class);
        for (AbstractResource u : users) {
            count.merge(u.type, 1, Integer::sum);
        }
        StringBuilder sb = new StringBuilder();
        count.forEach((t, n) -> sb.append(sb.length() == 0 ? "" : ", ").append(n).append(' ').append(t));
        throw new VerbsException(Errno.EBUSY, device.name() + ": " + label() + " is still used by " + sb);
    }

    /** The driver-side destroy. */
    abstract void driverDestroy();

    /** Destroy as the owner asked: refused while in use. */
    final void destroyChecked() {
        synchronized (device.lifecycle) {
            checkValid();
            checkNotInUse();
            driverDestroy();
            release();
        }
    }

    /** Forget this resource: drop the use counts it held and its restrack entry. */
    final void release() {
        valid = false;
        for (AbstractResource p : uses) {
            p.users.remove(this);
        }
        device.untrack(this);
    }

    abstract String summary();

    ResourceInfo info() {
        return new ResourceInfo(type, id, owner == null ? "-" : owner.name(), summary());
    }
}
