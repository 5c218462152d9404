package org.jrdma.webconsole;

import java.util.List;

import org.jrdma.ulp.iser.IserInitiator;
import org.jrdma.ulp.iser.IserSession;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/** ulp-iser's initiator sessions, as {@code iscsiadm -m session} lists them. */
@Component(service = UlpSection.class)
public final class IserSection implements UlpSection {
    private final IserInitiator initiator;

    @Activate
    public IserSection(@Reference IserInitiator initiator) {
        this.initiator = initiator;
    }

    @Override
    public int order() {
        return 20;
    }

    @Override
    public void render(Html h) {
        render(initiator.initiatorName(), initiator.sessions(), h);
    }

    static void render(String initiatorName, List<IserSession> sessions, Html h) {
        h.heading("jrdma-iser-title", "iSER sessions");
        h.raw("<p class=\"statline\">Initiator ").text(initiatorName).raw("</p>\n");
        if (sessions.isEmpty()) {
            h.note("No iSER sessions (iscsiadm -m node -T TARGET -p PORTAL --login starts one).");
            return;
        }
        h.table("jrdma-iser", List.of("SID", "Target", "Portal", "TPGT", "State", "LUNs", "Queue depth"));
        for (IserSession s : sessions) {
            h.row(List.of(s.sid(), s.targetName(), s.portal().getHostString() + ":" + s.portal().getPort(),
                    s.portalGroupTag(), s.state(), s.luns(), s.queueDepth()));
        }
        h.endTable();
    }
}
