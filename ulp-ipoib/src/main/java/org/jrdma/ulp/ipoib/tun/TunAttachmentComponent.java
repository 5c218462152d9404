package org.jrdma.ulp.ipoib.tun;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.jrdma.ulp.ipoib.IfAddress;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;

/**
 * One TUN attachment per factory configuration {@value #PID} (FileInstall: {@code etc/org.jrdma.ulp.ipoib.tun-jib0.cfg}
 * with {@code iface = ib0}, {@code tun = jib0}, {@code netns = A}, {@code addr = 10.9.0.1/24}): made at start or when
 * the file appears, even before the interface exists; gone when the file goes. A bad configuration fails the
 * activation with the reason (in the log), as {@code ipoib attach} would refuse it.
 */
@Component(configurationPid = TunAttachmentComponent.PID, configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = TunConfig.class, factory = true)
public class TunAttachmentComponent {
    public static final String PID = "org.jrdma.ulp.ipoib.tun";

    @Reference
    TunAttachments tuns;

    private String tunName;

    @Activate
    void activate(TunConfig config) throws IOException {
        if (config.iface() == null || config.iface().isBlank() || config.tun() == null || config.tun().isBlank()) {
            throw new IllegalArgumentException(PID + ": iface and tun are required");
        }
        List<IfAddress> addrs = new ArrayList<>();
        for (String v : config.addr().strip().split("[,\\s]+")) {
            IfAddress addr = v.isEmpty() ? null : TunAttachments.parseAddress(v);
            if (addr == null && !v.isEmpty()) {
                throw new IllegalArgumentException(PID + ": addr \"" + v + "\" is not an address/prefix");
            }
            if (addr != null) {
                addrs.add(addr);
            }
        }
        String netns = config.netns().isBlank() ? null : config.netns().strip();
        tunName = tuns.attachWhenReady(config.iface().strip(), config.tun().strip(), netns, addrs).tunName();
    }

    @Deactivate
    void deactivate() {
        if (tunName != null) {
            tuns.detach(tunName);
        }
    }
}
