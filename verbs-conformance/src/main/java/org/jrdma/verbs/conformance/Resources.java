package org.jrdma.verbs.conformance;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.jrdma.ib.core.AddressHandle;
import org.jrdma.ib.core.AhAttr;
import org.jrdma.ib.core.CompletionQueue;
import org.jrdma.ib.core.CqInitAttr;
import org.jrdma.ib.core.IbClient;
import org.jrdma.ib.core.IbDevice;
import org.jrdma.ib.core.MemoryRegion;
import org.jrdma.ib.core.MemoryWindow;
import org.jrdma.ib.core.MrType;
import org.jrdma.ib.core.MwType;
import org.jrdma.ib.core.ProtectionDomain;
import org.jrdma.ib.core.QpInitAttr;
import org.jrdma.ib.core.QueuePair;
import org.jrdma.ib.core.ResourceInfo;
import org.jrdma.ib.core.SharedReceiveQueue;
import org.jrdma.ib.core.SrqInitAttr;
import org.jrdma.ib.core.VerbsObject;

/**
 * Everything one test creates, owned by the suite's {@link IbClient} and destroyed in dependency
 * order (QPs, MWs, MRs, AHs, SRQs, CQs, PDs) by {@link #close()}, which then checks that the
 * devices track nothing of this client any more.
 */
public final class Resources implements AutoCloseable {
    public static final String CLIENT_NAME = "verbs-conformance";

    private final VerbsTestBed bed;
    private final IbClient client;
    private final List<VerbsObject> objects = new ArrayList<>();
    private boolean closed;

    public Resources(VerbsTestBed bed) {
        this.bed = bed;
        this.client = new IbClient() {
            @Override
            public String name() {
                return CLIENT_NAME;
            }

            @Override
            public void add(org.jrdma.ib.core.IbDevice device) {
            }

            @Override
            public void remove(org.jrdma.ib.core.IbDevice device, Object clientData) {
            }
        };
        bed.core().registerClient(client);
    }

    public VerbsTestBed bed() {
        return bed;
    }

    public IbClient client() {
        return client;
    }

    /** Tracks an object created elsewhere so {@link #close()} destroys it. */
    public synchronized <T extends VerbsObject> T track(T o) {
        objects.add(o);
        return o;
    }

    public ProtectionDomain pd(IbDevice dev) {
        return track(dev.allocPd(client));
    }

    /** A CQ that {@link Completions#poll} waits on through its completion handler. */
    public CompletionQueue cq(IbDevice dev, int cqe, EventLog events) {
        return track(dev.createCq(client, Completions.waitable(cqe, events)));
    }

    /** A CQ with the caller's handlers. */
    public CompletionQueue cq(IbDevice dev, CqInitAttr attr) {
        return track(dev.createCq(client, attr));
    }

    public QueuePair qp(ProtectionDomain pd, QpInitAttr attr) {
        return track(pd.createQp(attr));
    }

    public SharedReceiveQueue srq(ProtectionDomain pd, SrqInitAttr attr) {
        return track(pd.createSrq(attr));
    }

    public AddressHandle ah(ProtectionDomain pd, AhAttr attr) {
        return track(pd.createAh(attr));
    }

    public MemoryWindow mw(ProtectionDomain pd, MwType type) {
        return track(pd.allocMw(type));
    }

    public MemoryRegion fastRegMr(ProtectionDomain pd, int maxNumSg) {
        return track(pd.allocMr(MrType.MEM_REG, maxNumSg));
    }

    public MemoryRegion mr(ProtectionDomain pd, ByteBuffer bb, int access) {
        return track(pd.regMr(bb, access));
    }

    /** A registered direct buffer of {@code size} bytes, zeroed. */
    public Buf buf(ProtectionDomain pd, int size, int access) {
        return buf(pd, size, access, true);
    }

    public Buf buf(ProtectionDomain pd, int size, int access, boolean direct) {
        ByteBuffer bb = direct ? ByteBuffer.allocateDirect(size) : ByteBuffer.allocate(size);
        return new Buf(bb, mr(pd, bb.duplicate(), access));
    }

    private static int rank(VerbsObject o) {
        if (o instanceof QueuePair) {
            return 0;
        }
        if (o instanceof MemoryWindow) {
            return 1;
        }
        if (o instanceof MemoryRegion) {
            return 2;
        }
        if (o instanceof AddressHandle) {
            return 3;
        }
        if (o instanceof SharedReceiveQueue) {
            return 4;
        }
        if (o instanceof CompletionQueue) {
            return 5;
        }
        return 6;
    }

    private static void destroy(VerbsObject o) {
        if (o instanceof QueuePair) {
            ((QueuePair) o).destroy();
        } else if (o instanceof MemoryWindow) {
            ((MemoryWindow) o).dealloc();
        } else if (o instanceof MemoryRegion) {
            ((MemoryRegion) o).dereg();
        } else if (o instanceof AddressHandle) {
            ((AddressHandle) o).destroy();
        } else if (o instanceof SharedReceiveQueue) {
            ((SharedReceiveQueue) o).destroy();
        } else if (o instanceof CompletionQueue) {
            ((CompletionQueue) o).destroy();
        } else if (o instanceof ProtectionDomain) {
            ((ProtectionDomain) o).dealloc();
        }
    }

    /**
     * Destroys what is still valid, newest first within each kind, then fails if a device still
     * tracks a resource of this client; unregisters the client last.
     */
    @Override
    public void close() {
        List<VerbsObject> all;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            all = new ArrayList<>(objects);
        }
        AssertionError failure = null;
        for (int r = 0; r <= 6; r++) {
            for (int i = all.size() - 1; i >= 0; i--) {
                VerbsObject o = all.get(i);
                if (rank(o) != r || !o.isValid()) {
                    continue;
                }
                try {
                    destroy(o);
                } catch (RuntimeException e) {
                    if (failure == null) {
                        failure = new AssertionError("cleanup: destroying " + o + " failed: " + e, e);
                    } else {
                        failure.addSuppressed(e);
                    }
                }
            }
        }
        List<ResourceInfo> left = new ArrayList<>();
        for (IbDevice d : List.of(bed.a(), bed.b())) {
            if (!d.isRegistered()) {
                continue;
            }
            for (ResourceInfo ri : d.resources()) {
                if (CLIENT_NAME.equals(ri.owner()) && !left.contains(ri)) {
                    left.add(ri);
                }
            }
        }
        bed.core().unregisterClient(client);
        if (failure == null && !left.isEmpty()) {
            failure = new AssertionError("cleanup: resources still tracked after every destroy: " + left);
        }
        if (failure != null) {
            throw failure;
        }
    }
}
