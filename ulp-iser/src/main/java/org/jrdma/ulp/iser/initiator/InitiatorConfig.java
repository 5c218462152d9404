package org.jrdma.ulp.iser.initiator;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

@ObjectClassDefinition(name = "jrdma iSER initiator",
        description = "The iSER initiator (open-iscsi + ib_iser): its InitiatorName and the session defaults of"
                + " iscsid.conf.")
// DS reads a method's property from its name with "_" turned into "." and "__" into "_": cmds__max() is the key
// cmds_max, as in etc/org.jrdma.ulp.iser.initiator.cfg (a single "_" made it cmds.max, and the file was ignored)
@interface InitiatorConfig {
    @AttributeDefinition(name = "InitiatorName", required = false, description = "iSCSI name of this host; empty:"
            + " generated once as iqn.2026-12.org.jrdma:01:<12 hex digits> and kept in the bundle's data area")
    String initiatorName() default "";

    @AttributeDefinition(name = "node.session.cmds_max", description = "Commands outstanding per session")
    int cmds__max() default 128;

    @AttributeDefinition(name = "node.session.queue_depth", description = "Queue depth reported per LUN")
    int queue__depth() default 32;

    @AttributeDefinition(name = "node.session.timeo.replacement_timeout",
            description = "Seconds I/O waits for a lost connection to be reinstated before it fails")
    int replacement__timeout() default 120;

    @AttributeDefinition(name = "node.conn[0].timeo.noop_out_interval",
            description = "Seconds between NOP-Out pings (0: none)")
    int noop__out__interval() default 5;

    @AttributeDefinition(name = "node.conn[0].timeo.noop_out_timeout",
            description = "Seconds a ping may stay unanswered before the connection is dropped")
    int noop__out__timeout() default 5;

    @AttributeDefinition(name = "node.conn[0].timeo.login_timeout", description = "Seconds a login may take")
    int login__timeout() default 15;
}
