package org.jrdma.ulp.iser.target;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

@ObjectClassDefinition(name = "jrdma iSER target",
        description = "An iSCSI target served over iSER (LIO isert), set up as targetcli would: the target, its"
                + " tpg1, iSER portals, LUNs on ramdisk or fileio backstores, initiator ACLs and CHAP. One factory"
                + " configuration per target; it shows in 'targetcli ls' next to what targetcli created.")
@interface IserTargetConfig {
    @AttributeDefinition(name = "Target IQN", description = "The target name, e.g. iqn.2026-12.org.jrdma:t1")
    String iqn();

    @AttributeDefinition(name = "Portals", required = false,
            description = "IP[:PORT] addresses to listen on through the RDMA CM (port 3260 if omitted; IPv6 as"
                    + " [::1]:3260); iSER is always enabled on them")
    String[] portals() default {"0.0.0.0:3260"};

    @AttributeDefinition(name = "LUNs", required = false,
            description = "LUN 0, 1, ... in order: ramdisk:NAME:SIZE or fileio:NAME:PATH:SIZE (SIZE as targetcli:"
                    + " 64M, 1G, 512K, bytes; a missing file is created sparse, an existing one keeps its size"
                    + " with SIZE 0)")
    String[] luns() default {};

    @AttributeDefinition(name = "Read-only", required = false, description = "Export every LUN write-protected")
    boolean readOnly() default false;

    @AttributeDefinition(name = "Allowed initiators", required = false,
            description = "Initiator IQNs with a node ACL (each sees every LUN); empty: demo mode, any initiator")
    String[] initiators() default {};

    @AttributeDefinition(name = "CHAP user", required = false,
            description = "CHAP userid the initiators must log in with; empty: no authentication")
    String chapUserid() default "";

    @AttributeDefinition(name = "CHAP password", required = false, type = org.osgi.service.metatype.annotations.AttributeType.PASSWORD)
    String chapPassword() default "";

    @AttributeDefinition(name = "Mutual CHAP user", required = false,
            description = "The userid the target answers the initiator's challenge with; empty: one-way CHAP")
    String chapMutualUserid() default "";

    @AttributeDefinition(name = "Mutual CHAP password", required = false,
            type = org.osgi.service.metatype.annotations.AttributeType.PASSWORD)
    String chapMutualPassword() default "";

    @AttributeDefinition(name = "Enabled", required = false, description = "Whether tpg1 accepts logins")
    boolean enabled() default true;
}
