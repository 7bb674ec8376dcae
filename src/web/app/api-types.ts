/**
 * GENERATED FILE — do not edit. The types of the Posthorn API as its OpenAPI document
 * (GET /openapi/json) declares them, made by openapi-typescript.
 * Regenerate after changing a route's schema: bun scripts/dashboard-api-types.ts
 * (scripts/build.ts does it too; test/http/dashboard-api-types.test.ts fails when this file is stale).
 */

export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness check (no auth); 503 while the database cannot be reached */
        get: operations["getHealthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics (loopback and private networks, or POSTHORN_METRICS_TOKEN)
         * @description Every team's mail figures by route: answered to clients on loopback and private networks, or to any with `Authorization: Bearer` POSTHORN_METRICS_TOKEN when it is set (else 401); without the token, other clients get a 403.
         */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ping": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Check a team or project token */
        get: operations["getV1Ping"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/send": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send an email
         * @description Accepts one email for delivery. A 202 means it is stored durably; delivery follows. Custom headers cannot contain line breaks nor set From, Sender, To, Cc, Bcc, Reply-To, Subject, Date, Message-ID, DKIM-Signature, Return-Path, Received, MIME-Version, Content-Type or Content-Transfer-Encoding.
         */
        post: operations["postV1Send"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/send/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send up to 500 emails
         * @description All or nothing: if any email is invalid the answer is 422 with errors keyed by index (e.g. 3.subject) and nothing is sent. Otherwise one {message_id, status} per email, in order.
         */
        post: operations["postV1SendBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/unsubscribe/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Unsubscribe confirmation page (the List-Unsubscribe link of broadcast mail, one per recipient); changes nothing */
        get: operations["getV1UnsubscribeByToken"];
        put?: never;
        /**
         * One-click unsubscribe (RFC 8058): adds a route-scoped suppression for the one recipient the link was sent to
         * @description The body (RFC 8058's List-Unsubscribe=One-Click) is not read. A message-wide link of mail sent before per-recipient links, shared by several recipients, unsubscribes only the address given as `?email=`, if it is one of the message's recipients (the answer is the same either way); without it, 422 and nothing changes.
         */
        post: operations["postV1UnsubscribeByToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/domains": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the team's domains (sort: created_at, domain, status, status_changed_at) */
        get: operations["getV1Domains"];
        put?: never;
        /** Add a sending domain; answers the DNS records to publish */
        post: operations["postV1Domains"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/domains/{domainId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A domain with its DNS records and projects */
        get: operations["getV1DomainsByDomainId"];
        put?: never;
        post?: never;
        /** Delete a domain and its DKIM key */
        delete: operations["deleteV1DomainsByDomainId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/domains/{domainId}/projects": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Replace the projects that may send from the domain */
        put: operations["putV1DomainsByDomainIdProjects"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/domains/{domainId}/dns-records/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Check every DNS record now; answers which failed and why */
        post: operations["postV1DomainsByDomainIdDns-recordsVerify"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/domains/{domainId}/dns-records/{recordId}/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Check one DNS record of the domain now; 422 with why when it does not pass (its new status is recorded) */
        post: operations["postV1DomainsByDomainIdDns-recordsByRecordIdVerify"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/domains/{domainId}/dkim/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Rotate the domain's DKIM keys: new RSA and Ed25519 keys under new selectors, pending until their records verify (a pending rotation is replaced) */
        post: operations["postV1DomainsByDomainIdDkimRotate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/routes/{routeId}/verify-inbound-domain": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Check the route's inbound_domain: its MX points to this server and its _posthorn-verification TXT record holds the route's token */
        post: operations["postV1RoutesByRouteIdVerify-inbound-domain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/domains/{domainId}/deliverability/dmarc": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** DMARC pass rates of a domain per day and reporter, Posthorn's addresses apart from other sources, with advice (from and to: UTC days, default the last 30) */
        get: operations["getV1DomainsByDomainIdDeliverabilityDmarc"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/domains/{domainId}/deliverability/tls": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** TLS reports (RFC 8460) of a domain per day and reporter, and failed sessions per receiving MX with their result types */
        get: operations["getV1DomainsByDomainIdDeliverabilityTls"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/deliverability/blocklists": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Blocklist status: the server's sending addresses in the DNSBL zones and the team's verified domains in the domain zones, from the last check */
        get: operations["getV1DeliverabilityBlocklists"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/domains/{domainId}/warmup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A domain's warm-up: schedule, today's cap and count, held mail, each day so far */
        get: operations["getV1DomainsByDomainIdWarmup"];
        /**
         * Turn a domain's warm-up on or off
         * @description While on, the recipients the domain's mail is first attempted for per UTC day are capped by the schedule; mail beyond the cap stays queued and goes the next day (broadcast routes may use 90 % of a day's cap). Past the schedule's last day the domain is uncapped.
         */
        put: operations["putV1DomainsByDomainIdWarmup"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/report-forwarding": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The project's report forwarding: destination, verified */
        get: operations["getV1ProjectsByProjectIdReport-forwarding"];
        /** Set the destination DMARC and TLS reports are forwarded to; a code is mailed to it (sent through Posthorn) */
        put: operations["putV1ProjectsByProjectIdReport-forwarding"];
        post?: never;
        /** Turn report forwarding off (204) */
        delete: operations["deleteV1ProjectsByProjectIdReport-forwarding"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/report-forwarding/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Verify the destination with the code mailed to it */
        post: operations["postV1ProjectsByProjectIdReport-forwardingVerify"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/report-forwarding/resend-code": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mail a new code to the destination (at most once a minute) */
        post: operations["postV1ProjectsByProjectIdReport-forwardingResend-code"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/team": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get the team */
        get: operations["getV1Team"];
        /** Update team settings (name only) */
        put: operations["putV1Team"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/team/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List team members */
        get: operations["getV1TeamMembers"];
        put?: never;
        /**
         * Invite a team member
         * @description Adds the address as a pending member (status pending, joined_at null), who has no access to the team until the invitation is accepted. An address with no account on this server gets password_url, a one-time link (7 days) to set a password in the dashboard, which accepts the invitation. An address that has an account already (a member of, or invited to, another team) gets invitation_url instead: a one-time link (7 days) the user opens signed in with their own password to accept (POST /v1/auth/invitations/accept); no team can set or learn the password of an account another team shares. Both links are shown here only. Inviting a pending member again replaces the invitation (the earlier link stops working); an active member is a 409.
         */
        post: operations["postV1TeamMembers"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/team/members/{memberId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a team member
         * @description TeamMemberData directly (as Lettermint's team.member reads it), active or pending. The path takes the member's id (the list's id) or their user's id (user.id); a member of another team is a 404 like an unknown id.
         */
        get: operations["getV1TeamMembersByMemberId"];
        put?: never;
        post?: never;
        /** Remove a team member; their sessions in this team end. A pending member's invitation is revoked (its link stops working). Only an owner removes an owner (409 owner_protected); the last owner stays (409 last_owner) */
        delete: operations["deleteV1TeamMembersByMemberId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/team/roles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the team's roles
         * @description Lettermint's TeamRoleData: the built-in roles owner, admin and member (system_key; ids equal to it, never changed) and the team's custom roles (system_key null), each with its permissions. docs/access.md lists what the built-in roles may do.
         */
        get: operations["getV1TeamRoles"];
        put?: never;
        /**
         * Create a custom role
         * @description A name unique in the team and the service's permission names (an unknown name is a 422 naming it). Nobody grants a permission they do not have themselves (403 missing_permission).
         */
        post: operations["postV1TeamRoles"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/team/roles/{roleId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Rename a custom role or replace its permissions
         * @description Members holding the role have its new permissions on their next request. A built-in role is a 409 built_in_role_immutable; another team's role a 404.
         */
        put: operations["putV1TeamRolesByRoleId"];
        post?: never;
        /**
         * Delete a custom role
         * @description 409 built_in_role_immutable for a built-in role; 409 stale_resource while members still hold it (give them another role first).
         */
        delete: operations["deleteV1TeamRolesByRoleId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/team/members/{memberId}/assignment": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set a member's role and project access
         * @description Lettermint's TeamMembersAssignmentUpdateRequest; answers TeamMemberData directly. role_id: a role of GET /v1/team/roles (else 422). project_access: scope all, or selected with the project_ids the member works on (each a project of the team, else 422); an owner always works on every project. 409 owner_protected when someone who is no owner changes an owner or gives the owner role; 409 last_owner when the team's last owner would lose the role. The member's sessions have the new role and projects on their next request.
         */
        put: operations["putV1TeamMembersByMemberIdAssignment"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/team/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the team's named API tokens (never their secrets)
         * @description Each with its role or permissions, its projects, its expiry and its last use (time and IP). The team's own token (ph_team_ of team creation) is not listed: it is an owner's token.
         */
        get: operations["getV1TeamTokens"];
        put?: never;
        /**
         * Create a named API token
         * @description A name, and either role_id (the token has the role's permissions, following its changes) or permissions (its own); project_ids limits it to those projects (everything of another is a 404 to it), expires_at to a time (then 401). The token is answered once and stored as its SHA-256. Nobody makes a token that may do more than they may (403 missing_permission; a member with selected projects names some of theirs).
         */
        post: operations["postV1TeamTokens"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/team/tokens/{tokenId}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Rotate a named token: a new secret, the old one refused at once */
        post: operations["postV1TeamTokensByTokenIdRotate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/team/tokens/{tokenId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a named token: refused at once (401) */
        delete: operations["deleteV1TeamTokensByTokenId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/team/audit-log": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the team's audit log
         * @description Every successful change made through the API, the dashboard or the CLI, newest first: who (a user, a named token, the team token, the CLI), the operation and its target ids, the changed fields (never secret values), the status, IP and user agent. Kept 400 days.
         */
        get: operations["getV1TeamAudit-log"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List projects */
        get: operations["getV1Projects"];
        put?: never;
        /** Create a project (with one default route of each type); returns its sending token once */
        post: operations["postV1Projects"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a project */
        get: operations["getV1ProjectsByProjectId"];
        /** Update a project (name, smtp_enabled) */
        put: operations["putV1ProjectsByProjectId"];
        post?: never;
        /**
         * Delete a project
         * @description Deletes its routes, their webhooks and deliveries, project- and route-scoped suppressions, domain attachments, members and idempotency keys. Messages stay, with project_id and route_id set to null; mail already accepted is still delivered.
         */
        delete: operations["deleteV1ProjectsByProjectId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Replace the project's members with the given team members */
        put: operations["putV1ProjectsByProjectIdMembers"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/rotate-token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Rotate the project sending token (the old one stops working at once) */
        post: operations["postV1ProjectsByProjectIdRotate-token"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/routes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a project's routes */
        get: operations["getV1ProjectsByProjectIdRoutes"];
        put?: never;
        /** Create a route in a project (response nests the project) */
        post: operations["postV1ProjectsByProjectIdRoutes"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/routes/{routeId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a route */
        get: operations["getV1RoutesByRouteId"];
        /** Update a route (name, settings, inbound settings) */
        put: operations["putV1RoutesByRouteId"];
        post?: never;
        /**
         * Delete a route
         * @description Deletes its webhooks (with their deliveries) and route-scoped suppressions; its messages stay with route_id set to null. Default routes cannot be deleted (409).
         */
        delete: operations["deleteV1RoutesByRouteId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List messages
         * @description Cursor-paginated; unknown sort keys, unknown filters and invalid filter values are a 422.
         */
        get: operations["getV1Messages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{messageId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a message */
        get: operations["getV1MessagesByMessageId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Reschedule a scheduled message
         * @description Moves a message sent with scheduled_at to a new time (ISO 8601 with an offset, in the future, at most 30 days ahead). 409 once it has left scheduled (its time came, or it was canceled). A project token reaches its own project's messages only.
         */
        patch: operations["patchV1MessagesByMessageId"];
        trace?: never;
    };
    "/v1/messages/{messageId}/process": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Release a quarantined inbound message to its route's webhooks
         * @description A message held as quarantined (at or above its route's inbound_spam_threshold) is analysed again and handed to the route's webhooks as message.inbound. 409 with error INBOUND_MESSAGE_NOT_QUARANTINED, INBOUND_WEBHOOK_NOT_CONFIGURED or MESSAGE_SOURCE_UNAVAILABLE; 422 for an outbound message.
         */
        post: operations["postV1MessagesByMessageIdProcess"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{messageId}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A message's event history (status changes, opens, clicks…), oldest first */
        get: operations["getV1MessagesByMessageIdEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{messageId}/recipients": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Each recipient of a message with their own status */
        get: operations["getV1MessagesByMessageIdRecipients"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{messageId}/html": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The message's HTML part, as a sandboxed page (no scripts, no remote loads unless images=1) */
        get: operations["getV1MessagesByMessageIdHtml"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{messageId}/text": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The message's plain-text part */
        get: operations["getV1MessagesByMessageIdText"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{messageId}/source": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The raw MIME source of a message (message/rfc822); 404 until one is stored */
        get: operations["getV1MessagesByMessageIdSource"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/queue/destinations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Delivery destinations and their shaping
         * @description Each destination (the MX host set of recipient domains, or the relay) with the limits in force, the pause a rate reply (421, 4.7.28, "too many", "try later") set, and the latest reply the destination gave to the team's own queued mail. Paused destinations first, at most 1000. Only the destinations the team's queued mail is waiting for, with only its own recipient domains: destinations and their shaping are the server's (a pause holds every team's mail there), the domains mailed to and the replies about them are each team's.
         */
        get: operations["getV1QueueDestinations"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/queue": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List outbound messages not yet final, oldest first, with their queued recipients, next attempt and last reply; scheduled messages with their scheduled_at */
        get: operations["getV1Queue"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/queue/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Attempt every queued message matching the filters now (attempt counts and queue lifetime unchanged)
         * @description Filters as for GET /v1/queue, in the query (filter[domain], filter[route_id], filter[status]); none means the team's whole queue. An unknown filter is a 422, never a wider action. Scheduled messages are left to their time (PATCH /v1/messages/{id} moves one, POST /v1/messages/{id}/cancel cancels it). Messages with an attempt under way (or due within seconds) are not counted.
         */
        post: operations["postV1QueueRetry"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/queue/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel every queued message matching the filters: their remaining recipients become failed, reason cancelled
         * @description Filters as for GET /v1/queue, in the query (filter[domain], filter[route_id], filter[status]); none means the team's whole queue. An unknown filter is a 422, never a wider action. Scheduled messages are left to their time (PATCH /v1/messages/{id} moves one, POST /v1/messages/{id}/cancel cancels it). With filter[domain], only the recipients at that domain are cancelled.
         */
        post: operations["postV1QueueCancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{messageId}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Attempt a queued message now (409 when it is final, inbound or scheduled: PATCH /v1/messages/{id} moves a scheduled one) */
        post: operations["postV1MessagesByMessageIdRetry"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{messageId}/cancel-delivery": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a queued message: its remaining recipients become failed, reason cancelled (409 when it is final, inbound or scheduled: POST /v1/messages/{id}/cancel cancels a scheduled one)
         * @description A recipient the receiving server accepted during an attempt under way stays with that attempt and ends delivered.
         */
        post: operations["postV1MessagesByMessageIdCancel-delivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{messageId}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a scheduled message
         * @description A message sent with scheduled_at and still waiting becomes canceled and is never sent. 409 once it has left scheduled (its time came, or it was canceled); POST /v1/messages/{id}/cancel-delivery stops a message in the delivery queue. A project token reaches its own project's messages only.
         */
        post: operations["postV1MessagesByMessageIdCancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/suppressions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List suppressions */
        get: operations["getV1Suppressions"];
        put?: never;
        /**
         * Suppress addresses for the team, a project or a route
         * @description Give email, emails (1–1000) or both. Addresses already suppressed in that scope, or listed twice, are returned in data.skipped with the reason; the rest in data.created.
         */
        post: operations["postV1Suppressions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/suppressions/{suppressionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete (lift) a suppression */
        delete: operations["deleteV1SuppressionsBySuppressionId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List webhooks (filter[route_id], filter[enabled]) */
        get: operations["getV1Webhooks"];
        put?: never;
        /** Create a webhook (the response carries its secret, shown once) */
        post: operations["postV1Webhooks"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a webhook (without its secret) */
        get: operations["getV1WebhooksById"];
        /** Update a webhook (the secret is kept; enabling clears disabled_reason) */
        put: operations["putV1WebhooksById"];
        post?: never;
        /** Delete a webhook (queued deliveries are dropped) */
        delete: operations["deleteV1WebhooksById"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/regenerate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Regenerate the signing secret (the old one stops signing at once) */
        post: operations["postV1WebhooksByIdRegenerate-secret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a signed webhook.test event now and report the attempt */
        post: operations["postV1WebhooksByIdTest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send the event of a delivery attempt again now (same event id and body, signed afresh), recorded as a new attempt */
        post: operations["postV1WebhooksByIdDeliveriesByDeliveryIdRedeliver"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/deliveries/{deliveryId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One delivery attempt, with the body that was sent and the start of the answer */
        get: operations["getV1WebhooksByIdDeliveriesByDeliveryId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List delivery attempts, newest first (filter[event], filter[outcome], filter[event_id]) */
        get: operations["getV1WebhooksByIdDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/attachments/{attachmentId}/download": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Download an inbound attachment through a signed link (no token; the link expires) */
        get: operations["getV1AttachmentsByAttachmentIdDownload"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/blocked-file-types": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Attachment file extensions and MIME types that sends refuse (422) */
        get: operations["getV1Blocked-file-types"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Message statistics per day
         * @description Daily rows and totals for from..to (dates, inclusive, at most 366 days): sent, delivered, hard bounces, complaints, opens and clicks by verdict (people, privacy proxies, machines), inbound received; transactional and broadcast apart when project_id is given.
         */
        get: operations["getV1Stats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/team/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Messages accepted per calendar month
         * @description This month (UTC) and the 12 before, newest first.
         */
        get: operations["getV1TeamUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/analytics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Query analytics
         * @description Metrics over a window of at most 90 days, as a summary, a time series and a breakdown by up to three dimensions, optionally compared with the period before. Unknown metrics and dimensions are refused with a 422 naming them.
         */
        post: operations["postV1Analytics"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/sign-in": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign in to the dashboard
         * @description Opens a session for a team member: sets the HttpOnly cookie posthorn_session (SameSite=Strict; Secure under https) and answers the session, whose csrf_token must accompany every request that changes something (X-CSRF-Token). A cookie the client still sends is ended (the session is rotated). When the user has two-factor sign-in on, a right password without `code` is a 401 whose error is two_factor_required (send the request again with the code), and a wrong, expired or replayed code a 401 two_factor_invalid, counted like a wrong password. Failed sign-ins are limited per address (5 in 15 minutes) and per client IP (POSTHORN_AUTH_FAILURE_LIMIT, 10 a minute, counted with failed API tokens and SMTP AUTH), then 429 with Retry-After.
         */
        post: operations["postV1AuthSign-in"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The current dashboard session (who is signed in, the CSRF token) */
        get: operations["getV1AuthSession"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/sign-out": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sign out (this session) */
        post: operations["postV1AuthSign-out"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/sign-out-everywhere": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sign out every session of this user, on every device and team */
        post: operations["postV1AuthSign-out-everywhere"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Set a password with a one-time link (an invitation)
         * @description The token comes from the password_url of an invitation (POST /v1/team/members), which is given only for an address that had no account on this server. It works once, for 7 days, while the invitation stands (removing the pending member revokes it), and only sets a first password: never that of a user who has one or who is an active member of another team. Setting the password accepts the invitation and ends the user's sessions.
         */
        post: operations["postV1AuthPassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/invitations/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Accept an invitation to a team
         * @description The token comes from the invitation_url of an invitation (POST /v1/team/members). The invited user accepts it as themselves: with their session (cookie posthorn_session and X-CSRF-Token, as every state-changing request), or, without one, with their own password (throttled like a sign-in of that address; with two-factor sign-in on, `code` too, else 401 two_factor_required). A session of another user is a 403; an unknown, used, revoked or expired token a 422. The invitation works once, for 7 days. The answer is a new session in the team just joined (the cookie is replaced).
         */
        post: operations["postV1AuthInvitationsAccept"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/two-factor/enrol": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start two-factor sign-in: a new TOTP secret
         * @description Answers a new TOTP secret (RFC 6238: SHA1, 6 digits, 30 seconds) as base32 and as an otpauth:// URI, shown this once. It takes effect only when POST /v1/auth/two-factor/confirm sends a code of it; starting again replaces it. 409 two_factor_enabled when two-factor sign-in is on already. A session that must enrol (the team requires it) may call this.
         */
        post: operations["postV1AuthTwo-factorEnrol"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/two-factor/confirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Confirm two-factor sign-in with a code
         * @description A code of the secret from /enrol turns two-factor sign-in on: the answer holds 10 single-use recovery codes, shown this once (kept only as SHA-256). This session counts as signed in with two factors; the user's other sessions end. A wrong, expired or used code is a 422 on `code`, throttled like a password (5 per user in 15 minutes, and the client IP's limit); 409 two_factor_not_enrolling without /enrol first.
         */
        post: operations["postV1AuthTwo-factorConfirm"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/two-factor/disable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Turn two-factor sign-in off with a code
         * @description Needs a current TOTP code or a recovery code (used up; a wrong one is a 422 on `code`, throttled like a password). The secret and the recovery codes are deleted. 409 two_factor_required_by_team while the team requires it; 409 two_factor_not_enabled when it is off.
         */
        post: operations["postV1AuthTwo-factorDisable"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/two-factor/recovery-codes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** New recovery codes (the old ones stop working), for a code */
        post: operations["postV1AuthTwo-factorRecovery-codes"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/two-factor/requirement": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Require two-factor sign-in of every member of the team (security:manage: owners)
         * @description With required true, a member's session opened without a second factor can only set it up (every other request with it is a 403 two_factor_enrolment_required) and the dashboard sends them to enrolment. The owner must have it on first (409 two_factor_not_enabled). Sessions opened through single sign-on count as two-factor (the identity provider's own factors).
         */
        put: operations["putV1AuthTwo-factorRequirement"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/sso": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Whether single sign-on (OpenID Connect) is configured
         * @description The sign-in page shows "Sign in with SSO" when it is, and `failure`: why this browser's last single sign-on was refused (carried from the callback by the cookie posthorn_sso_failure, signed by Posthorn, read once).
         */
        get: operations["getV1AuthSso"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/sso/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Start single sign-on: redirects to the identity provider
         * @description 303 to the configured issuer's authorization endpoint (authorization code with PKCE S256, a fresh state and nonce, scope openid email profile); the state is also kept in the cookie posthorn_sso (HttpOnly, SameSite=Lax, 10 minutes), which the callback requires. A client IP may start 30 in 10 minutes, then 429. 404 when single sign-on is not configured.
         */
        get: operations["getV1AuthSsoStart"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/sso/callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The identity provider's redirect back (single sign-on)
         * @description Checks the state against the browser's posthorn_sso cookie and the sign-in it names (used once, 10 minutes; else 422 on state), redeems the code with the PKCE verifier, and checks the ID token: RS256 or ES256 signature by a key of the issuer's JWKS, iss, aud (azp), exp and the nonce (else 401 sso_failed). The provider must vouch for the address (email_verified); a user with that address signs in, else one is created in the configured team with the default role (403 sso_no_team when there is none; 403 sso_domain_not_allowed outside POSTHORN_OIDC_ALLOWED_DOMAINS). Success: a session (cookie posthorn_session, counted as two-factor) and 303 to the dashboard. A refusal creates no user and no session; the error is the answer for an API client, while a browser (Accept: text/html) is sent 303 to the dashboard's sign-in page, which shows the same message (GET /v1/auth/sso's failure).
         */
        get: operations["getV1AuthSsoCallback"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: never;
    responses: {
        /** @description Too many requests: the rate limit of the project (send endpoints) or of the team (management) is spent, or the client IP has failed authentication too often. Nothing of the request was stored. */
        RateLimited: {
            headers: {
                "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                "application/json": {
                    message: string;
                };
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description Size of the caller's bucket (twice the sustained requests per second). On every answer of a rate-limited endpoint. */
        "RateLimit-Limit": number;
        /** @description Requests the bucket allows right now. On every answer of a rate-limited endpoint. */
        "RateLimit-Remaining": number;
        /** @description Seconds until the bucket is full again. On every answer of a rate-limited endpoint. */
        "RateLimit-Reset": number;
        /** @description Seconds until a request is allowed again. */
        "Retry-After": number;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealthz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        status: "ok";
                    };
                };
            };
            /** @description Error */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
        };
    };
    getV1Ping: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @enum {string} */
                        token_type: "team" | "project";
                        team_id: string;
                        project_id: string | null;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    postV1Send: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 characters. The same key and body within 24 h return the first response and send nothing again; another body → 409. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        /** @description One email */
        requestBody: {
            content: {
                "application/json": {
                    /** @description Sender, "user@example.com" or "Name <user@example.com>", on a domain attached to the project */
                    from: string;
                    subject: string;
                    to: string[];
                    /** @description Route slug (or id); default: the project's transactional route */
                    route?: string | null;
                    tag?: string | null;
                    html?: string | null;
                    text?: string | null;
                    cc?: string[] | null;
                    bcc?: string[] | null;
                    reply_to?: string[] | null;
                    /** @description Custom headers added to the email */
                    headers?: {
                        [key: string]: string;
                    } | null;
                    /** @description Tracked with the email and returned in events; never added as a header */
                    metadata?: {
                        [key: string]: string;
                    } | null;
                    /** @description Track opens of this email (a pixel in the HTML part); default: the route's track_opens */
                    track_opens?: boolean | null;
                    /** @description Track clicks of this email's http(s) links in the HTML part; default: the route's track_clicks */
                    track_clicks?: boolean | null;
                    /** @description Lettermint's per-email settings, overriding the route's for this email: track_opens and track_clicks as the fields of those names; tls enforced delivers only over TLS with a certificate valid for the MX host (a host that cannot is a soft bounce, never plaintext); opportunistic uses STARTTLS when offered; default: the route's tls */
                    settings?: ({
                        track_opens?: boolean;
                        track_clicks?: boolean;
                        /** @enum {string} */
                        tls?: "opportunistic" | "enforced";
                    } & {
                        [key: string]: unknown;
                    }) | null;
                    /** @description Send at this time instead of now: ISO 8601 with an offset (Z or ±hh:mm), in the future, at most 30 days ahead; the message is `scheduled` until then (PATCH /v1/messages/{id} moves it, POST /v1/messages/{id}/cancel cancels it) */
                    scheduled_at?: string | null;
                    /** @description Name-value tags, stored, shown and filterable (filter[tags][0][name], filter[tags][0][value]): at most 20, 19 beside a tag; names 1 to 32 and values 1 to 64 ASCII letters, digits, underscores or hyphens; names unique (case-sensitive) and not starting with __lettermint */
                    tags?: {
                        name: string;
                        value: string;
                    }[] | null;
                    attachments?: {
                        filename: string;
                        /** @description Base64-encoded file content */
                        content: string;
                        /** @description Makes the attachment an inline part that the HTML references as cid:<content_id> (inline images) */
                        content_id?: string | null;
                        /** @description MIME type; guessed from the filename when absent */
                        content_type?: string | null;
                    }[] | null;
                };
            };
        };
        responses: {
            /** @description Response for status 202 */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message_id: string;
                        /** @enum {string} */
                        status: "scheduled" | "pending" | "queued" | "quarantined" | "suppressed" | "processed" | "delivered" | "opened" | "clicked" | "soft_bounced" | "hard_bounced" | "spam_complaint" | "failed" | "blocked" | "policy_rejected" | "unsubscribed" | "canceled";
                        /**
                         * Format: date-time
                         * @description When a scheduled message will be sent (UTC); only with status scheduled
                         */
                        scheduled_at?: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    postV1SendBatch: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 characters. The same key and body within 24 h return the first response and send nothing again; another body → 409. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Sender, "user@example.com" or "Name <user@example.com>", on a domain attached to the project */
                    from: string;
                    subject: string;
                    to: string[];
                    /** @description Route slug (or id); default: the project's transactional route */
                    route?: string | null;
                    tag?: string | null;
                    html?: string | null;
                    text?: string | null;
                    cc?: string[] | null;
                    bcc?: string[] | null;
                    reply_to?: string[] | null;
                    /** @description Custom headers added to the email */
                    headers?: {
                        [key: string]: string;
                    } | null;
                    /** @description Tracked with the email and returned in events; never added as a header */
                    metadata?: {
                        [key: string]: string;
                    } | null;
                    /** @description Track opens of this email (a pixel in the HTML part); default: the route's track_opens */
                    track_opens?: boolean | null;
                    /** @description Track clicks of this email's http(s) links in the HTML part; default: the route's track_clicks */
                    track_clicks?: boolean | null;
                    /** @description Lettermint's per-email settings, overriding the route's for this email: track_opens and track_clicks as the fields of those names; tls enforced delivers only over TLS with a certificate valid for the MX host (a host that cannot is a soft bounce, never plaintext); opportunistic uses STARTTLS when offered; default: the route's tls */
                    settings?: ({
                        track_opens?: boolean;
                        track_clicks?: boolean;
                        /** @enum {string} */
                        tls?: "opportunistic" | "enforced";
                    } & {
                        [key: string]: unknown;
                    }) | null;
                    /** @description Send at this time instead of now: ISO 8601 with an offset (Z or ±hh:mm), in the future, at most 30 days ahead; the message is `scheduled` until then (PATCH /v1/messages/{id} moves it, POST /v1/messages/{id}/cancel cancels it) */
                    scheduled_at?: string | null;
                    /** @description Name-value tags, stored, shown and filterable (filter[tags][0][name], filter[tags][0][value]): at most 20, 19 beside a tag; names 1 to 32 and values 1 to 64 ASCII letters, digits, underscores or hyphens; names unique (case-sensitive) and not starting with __lettermint */
                    tags?: {
                        name: string;
                        value: string;
                    }[] | null;
                    attachments?: {
                        filename: string;
                        /** @description Base64-encoded file content */
                        content: string;
                        /** @description Makes the attachment an inline part that the HTML references as cid:<content_id> (inline images) */
                        content_id?: string | null;
                        /** @description MIME type; guessed from the filename when absent */
                        content_type?: string | null;
                    }[] | null;
                }[];
            };
        };
        responses: {
            /** @description Response for status 202 */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message_id: string;
                        /** @enum {string} */
                        status: "scheduled" | "pending" | "queued" | "quarantined" | "suppressed" | "processed" | "delivered" | "opened" | "clicked" | "soft_bounced" | "hard_bounced" | "spam_complaint" | "failed" | "blocked" | "policy_rejected" | "unsubscribed" | "canceled";
                        /**
                         * Format: date-time
                         * @description When a scheduled message will be sent (UTC); only with status scheduled
                         */
                        scheduled_at?: string;
                    }[];
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1UnsubscribeByToken: {
        parameters: {
            query?: {
                email?: string;
            };
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description HTML */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
        };
    };
    postV1UnsubscribeByToken: {
        parameters: {
            query?: {
                email?: string;
            };
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description HTML */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description HTML */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    getV1Domains: {
        parameters: {
            query?: {
                "page[size]"?: number;
                "page[cursor]"?: string;
                sort?: string;
                "filter[status]"?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            domain: string;
                            /** @description Lettermint's domain status: verified (the record required for verification, the signing RSA DKIM record, is active: the domain can send) | pending_verification | failed_verification; partially_verified never occurs (one record is required) */
                            status: string;
                            /** @description Posthorn's status: pending | active | failed; active when the RSA DKIM record is verified (the Ed25519 one does not gate sending) */
                            sending_status: string;
                            /** @description Always legacy_txt: the DKIM keys are published as TXT records (Lettermint's managed_cname mode is not offered) */
                            dkim_mode: string;
                            /** @description Always false: a DKIM key rotation needs new records published (POST /v1/domains/{id}/dkim/rotate) */
                            rotation_ready: boolean;
                            /** Format: date-time */
                            status_changed_at: string | null;
                            /** Format: date-time */
                            last_checked_at: string | null;
                            dkim_selector: string;
                            /** @description Envelope sender (bounce) domain */
                            return_path_domain: string;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                            dns_records: {
                                id: string;
                                /** @description Lettermint's purpose: dkim_legacy (a DKIM key published as TXT: RSA or Ed25519) | return_path (the bounce name's SPF and MX) | dmarc; dkim_primary and dkim_secondary (managed CNAMEs) never occur */
                                purpose: string;
                                /** @description Posthorn's finer purpose: dkim (RSA) | dkim_ed25519 | spf | return_path (MX) | dmarc | tls_rpt (where TLS reports go, RFC 8460; purpose dmarc) */
                                kind: string;
                                /** @description required (the signing RSA DKIM record: the domain is verified, and can send, when it is active) | recommended (Ed25519 DKIM, SPF, return-path MX, DMARC, TLS-RPT) | migration (a DKIM rotation's next key) | deprecated (a retiring DKIM key) */
                                verification_scope: string;
                                /** @description verification_scope is required */
                                required_for_verification: boolean;
                                /** @description TXT or MX */
                                type: string;
                                /** @description Name relative to the domain, as typed in a DNS panel */
                                hostname: string;
                                fqdn: string;
                                /** @description The value to publish (for MX: the target host; any priority) */
                                content: string;
                                /** @description pending | active | failed */
                                status: string;
                                /** @description Why the last check did not pass */
                                status_reason: string | null;
                                verified_at: string | null;
                                /** Format: date-time */
                                last_checked_at: string | null;
                                /** @description DKIM records only: current (its key signs), next (a rotation's new key: publish it; it signs once both next records verify) or retiring (a replaced key: keep it published until keep_until); null for other records */
                                key_state: string | null;
                                /**
                                 * Format: date-time
                                 * @description A retiring DKIM record: when it is dropped from this list and may be removed from DNS
                                 */
                                keep_until: string | null;
                            }[];
                            projects: {
                                id: string;
                                name: string;
                            }[];
                        }[];
                        path: string | null;
                        per_page: number;
                        next_cursor: string | null;
                        next_page_url: string | null;
                        prev_cursor: string | null;
                        prev_page_url: string | null;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    postV1Domains: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    domain: string;
                };
            };
        };
        responses: {
            /** @description Response for status 201 */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        domain: string;
                        /** @description Lettermint's domain status: verified (the record required for verification, the signing RSA DKIM record, is active: the domain can send) | pending_verification | failed_verification; partially_verified never occurs (one record is required) */
                        status: string;
                        /** @description Posthorn's status: pending | active | failed; active when the RSA DKIM record is verified (the Ed25519 one does not gate sending) */
                        sending_status: string;
                        /** @description Always legacy_txt: the DKIM keys are published as TXT records (Lettermint's managed_cname mode is not offered) */
                        dkim_mode: string;
                        /** @description Always false: a DKIM key rotation needs new records published (POST /v1/domains/{id}/dkim/rotate) */
                        rotation_ready: boolean;
                        /** Format: date-time */
                        status_changed_at: string | null;
                        /** Format: date-time */
                        last_checked_at: string | null;
                        dkim_selector: string;
                        /** @description Envelope sender (bounce) domain */
                        return_path_domain: string;
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        updated_at: string;
                        dns_records: {
                            id: string;
                            /** @description Lettermint's purpose: dkim_legacy (a DKIM key published as TXT: RSA or Ed25519) | return_path (the bounce name's SPF and MX) | dmarc; dkim_primary and dkim_secondary (managed CNAMEs) never occur */
                            purpose: string;
                            /** @description Posthorn's finer purpose: dkim (RSA) | dkim_ed25519 | spf | return_path (MX) | dmarc | tls_rpt (where TLS reports go, RFC 8460; purpose dmarc) */
                            kind: string;
                            /** @description required (the signing RSA DKIM record: the domain is verified, and can send, when it is active) | recommended (Ed25519 DKIM, SPF, return-path MX, DMARC, TLS-RPT) | migration (a DKIM rotation's next key) | deprecated (a retiring DKIM key) */
                            verification_scope: string;
                            /** @description verification_scope is required */
                            required_for_verification: boolean;
                            /** @description TXT or MX */
                            type: string;
                            /** @description Name relative to the domain, as typed in a DNS panel */
                            hostname: string;
                            fqdn: string;
                            /** @description The value to publish (for MX: the target host; any priority) */
                            content: string;
                            /** @description pending | active | failed */
                            status: string;
                            /** @description Why the last check did not pass */
                            status_reason: string | null;
                            verified_at: string | null;
                            /** Format: date-time */
                            last_checked_at: string | null;
                            /** @description DKIM records only: current (its key signs), next (a rotation's new key: publish it; it signs once both next records verify) or retiring (a replaced key: keep it published until keep_until); null for other records */
                            key_state: string | null;
                            /**
                             * Format: date-time
                             * @description A retiring DKIM record: when it is dropped from this list and may be removed from DNS
                             */
                            keep_until: string | null;
                        }[];
                        projects: {
                            id: string;
                            name: string;
                        }[];
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1DomainsByDomainId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                domainId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        domain: string;
                        /** @description Lettermint's domain status: verified (the record required for verification, the signing RSA DKIM record, is active: the domain can send) | pending_verification | failed_verification; partially_verified never occurs (one record is required) */
                        status: string;
                        /** @description Posthorn's status: pending | active | failed; active when the RSA DKIM record is verified (the Ed25519 one does not gate sending) */
                        sending_status: string;
                        /** @description Always legacy_txt: the DKIM keys are published as TXT records (Lettermint's managed_cname mode is not offered) */
                        dkim_mode: string;
                        /** @description Always false: a DKIM key rotation needs new records published (POST /v1/domains/{id}/dkim/rotate) */
                        rotation_ready: boolean;
                        /** Format: date-time */
                        status_changed_at: string | null;
                        /** Format: date-time */
                        last_checked_at: string | null;
                        dkim_selector: string;
                        /** @description Envelope sender (bounce) domain */
                        return_path_domain: string;
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        updated_at: string;
                        dns_records: {
                            id: string;
                            /** @description Lettermint's purpose: dkim_legacy (a DKIM key published as TXT: RSA or Ed25519) | return_path (the bounce name's SPF and MX) | dmarc; dkim_primary and dkim_secondary (managed CNAMEs) never occur */
                            purpose: string;
                            /** @description Posthorn's finer purpose: dkim (RSA) | dkim_ed25519 | spf | return_path (MX) | dmarc | tls_rpt (where TLS reports go, RFC 8460; purpose dmarc) */
                            kind: string;
                            /** @description required (the signing RSA DKIM record: the domain is verified, and can send, when it is active) | recommended (Ed25519 DKIM, SPF, return-path MX, DMARC, TLS-RPT) | migration (a DKIM rotation's next key) | deprecated (a retiring DKIM key) */
                            verification_scope: string;
                            /** @description verification_scope is required */
                            required_for_verification: boolean;
                            /** @description TXT or MX */
                            type: string;
                            /** @description Name relative to the domain, as typed in a DNS panel */
                            hostname: string;
                            fqdn: string;
                            /** @description The value to publish (for MX: the target host; any priority) */
                            content: string;
                            /** @description pending | active | failed */
                            status: string;
                            /** @description Why the last check did not pass */
                            status_reason: string | null;
                            verified_at: string | null;
                            /** Format: date-time */
                            last_checked_at: string | null;
                            /** @description DKIM records only: current (its key signs), next (a rotation's new key: publish it; it signs once both next records verify) or retiring (a replaced key: keep it published until keep_until); null for other records */
                            key_state: string | null;
                            /**
                             * Format: date-time
                             * @description A retiring DKIM record: when it is dropped from this list and may be removed from DNS
                             */
                            keep_until: string | null;
                        }[];
                        projects: {
                            id: string;
                            name: string;
                        }[];
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    deleteV1DomainsByDomainId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                domainId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    putV1DomainsByDomainIdProjects: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                domainId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    project_ids: string[];
                };
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            domain: string;
                            /** @description Lettermint's domain status: verified (the record required for verification, the signing RSA DKIM record, is active: the domain can send) | pending_verification | failed_verification; partially_verified never occurs (one record is required) */
                            status: string;
                            /** @description Posthorn's status: pending | active | failed; active when the RSA DKIM record is verified (the Ed25519 one does not gate sending) */
                            sending_status: string;
                            /** @description Always legacy_txt: the DKIM keys are published as TXT records (Lettermint's managed_cname mode is not offered) */
                            dkim_mode: string;
                            /** @description Always false: a DKIM key rotation needs new records published (POST /v1/domains/{id}/dkim/rotate) */
                            rotation_ready: boolean;
                            /** Format: date-time */
                            status_changed_at: string | null;
                            /** Format: date-time */
                            last_checked_at: string | null;
                            dkim_selector: string;
                            /** @description Envelope sender (bounce) domain */
                            return_path_domain: string;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                            dns_records: {
                                id: string;
                                /** @description Lettermint's purpose: dkim_legacy (a DKIM key published as TXT: RSA or Ed25519) | return_path (the bounce name's SPF and MX) | dmarc; dkim_primary and dkim_secondary (managed CNAMEs) never occur */
                                purpose: string;
                                /** @description Posthorn's finer purpose: dkim (RSA) | dkim_ed25519 | spf | return_path (MX) | dmarc | tls_rpt (where TLS reports go, RFC 8460; purpose dmarc) */
                                kind: string;
                                /** @description required (the signing RSA DKIM record: the domain is verified, and can send, when it is active) | recommended (Ed25519 DKIM, SPF, return-path MX, DMARC, TLS-RPT) | migration (a DKIM rotation's next key) | deprecated (a retiring DKIM key) */
                                verification_scope: string;
                                /** @description verification_scope is required */
                                required_for_verification: boolean;
                                /** @description TXT or MX */
                                type: string;
                                /** @description Name relative to the domain, as typed in a DNS panel */
                                hostname: string;
                                fqdn: string;
                                /** @description The value to publish (for MX: the target host; any priority) */
                                content: string;
                                /** @description pending | active | failed */
                                status: string;
                                /** @description Why the last check did not pass */
                                status_reason: string | null;
                                verified_at: string | null;
                                /** Format: date-time */
                                last_checked_at: string | null;
                                /** @description DKIM records only: current (its key signs), next (a rotation's new key: publish it; it signs once both next records verify) or retiring (a replaced key: keep it published until keep_until); null for other records */
                                key_state: string | null;
                                /**
                                 * Format: date-time
                                 * @description A retiring DKIM record: when it is dropped from this list and may be removed from DNS
                                 */
                                keep_until: string | null;
                            }[];
                            projects: {
                                id: string;
                                name: string;
                            }[];
                        };
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    "postV1DomainsByDomainIdDns-recordsVerify": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                domainId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            domain: string;
                            /** @description Lettermint's domain status: verified (the record required for verification, the signing RSA DKIM record, is active: the domain can send) | pending_verification | failed_verification; partially_verified never occurs (one record is required) */
                            status: string;
                            /** @description Posthorn's status: pending | active | failed; active when the RSA DKIM record is verified (the Ed25519 one does not gate sending) */
                            sending_status: string;
                            /** @description Always legacy_txt: the DKIM keys are published as TXT records (Lettermint's managed_cname mode is not offered) */
                            dkim_mode: string;
                            /** @description Always false: a DKIM key rotation needs new records published (POST /v1/domains/{id}/dkim/rotate) */
                            rotation_ready: boolean;
                            /** Format: date-time */
                            status_changed_at: string | null;
                            /** Format: date-time */
                            last_checked_at: string | null;
                            dkim_selector: string;
                            /** @description Envelope sender (bounce) domain */
                            return_path_domain: string;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                            dns_records: {
                                id: string;
                                /** @description Lettermint's purpose: dkim_legacy (a DKIM key published as TXT: RSA or Ed25519) | return_path (the bounce name's SPF and MX) | dmarc; dkim_primary and dkim_secondary (managed CNAMEs) never occur */
                                purpose: string;
                                /** @description Posthorn's finer purpose: dkim (RSA) | dkim_ed25519 | spf | return_path (MX) | dmarc | tls_rpt (where TLS reports go, RFC 8460; purpose dmarc) */
                                kind: string;
                                /** @description required (the signing RSA DKIM record: the domain is verified, and can send, when it is active) | recommended (Ed25519 DKIM, SPF, return-path MX, DMARC, TLS-RPT) | migration (a DKIM rotation's next key) | deprecated (a retiring DKIM key) */
                                verification_scope: string;
                                /** @description verification_scope is required */
                                required_for_verification: boolean;
                                /** @description TXT or MX */
                                type: string;
                                /** @description Name relative to the domain, as typed in a DNS panel */
                                hostname: string;
                                fqdn: string;
                                /** @description The value to publish (for MX: the target host; any priority) */
                                content: string;
                                /** @description pending | active | failed */
                                status: string;
                                /** @description Why the last check did not pass */
                                status_reason: string | null;
                                verified_at: string | null;
                                /** Format: date-time */
                                last_checked_at: string | null;
                                /** @description DKIM records only: current (its key signs), next (a rotation's new key: publish it; it signs once both next records verify) or retiring (a replaced key: keep it published until keep_until); null for other records */
                                key_state: string | null;
                                /**
                                 * Format: date-time
                                 * @description A retiring DKIM record: when it is dropped from this list and may be removed from DNS
                                 */
                                keep_until: string | null;
                            }[];
                            projects: {
                                id: string;
                                name: string;
                            }[];
                        };
                        /** @description The domain can send: its DKIM record is verified */
                        verified: boolean;
                        message: string;
                        failed: {
                            id: string;
                            /** @description As a record's purpose (Lettermint's) */
                            purpose: string;
                            /** @description As a record's kind (Posthorn's purpose) */
                            kind: string;
                            type: string;
                            fqdn: string;
                            status: string;
                            reason: string;
                            found: string[] | null;
                        }[];
                        /** @description The records of verification_scope recommended that did not pass (Lettermint's field; failed lists every record that did not pass, with why) */
                        recommended_failed_records: {
                            id: string;
                            type: string;
                            /** @description The record's fqdn */
                            name: string;
                        }[];
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    "postV1DomainsByDomainIdDns-recordsByRecordIdVerify": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                domainId: string;
                recordId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description DNS record verified successfully. */
                        message: string;
                        data: {
                            id: string;
                            /** @description Lettermint's purpose: dkim_legacy (a DKIM key published as TXT: RSA or Ed25519) | return_path (the bounce name's SPF and MX) | dmarc; dkim_primary and dkim_secondary (managed CNAMEs) never occur */
                            purpose: string;
                            /** @description Posthorn's finer purpose: dkim (RSA) | dkim_ed25519 | spf | return_path (MX) | dmarc | tls_rpt (where TLS reports go, RFC 8460; purpose dmarc) */
                            kind: string;
                            /** @description required (the signing RSA DKIM record: the domain is verified, and can send, when it is active) | recommended (Ed25519 DKIM, SPF, return-path MX, DMARC, TLS-RPT) | migration (a DKIM rotation's next key) | deprecated (a retiring DKIM key) */
                            verification_scope: string;
                            /** @description verification_scope is required */
                            required_for_verification: boolean;
                            /** @description TXT or MX */
                            type: string;
                            /** @description Name relative to the domain, as typed in a DNS panel */
                            hostname: string;
                            fqdn: string;
                            /** @description The value to publish (for MX: the target host; any priority) */
                            content: string;
                            /** @description pending | active | failed */
                            status: string;
                            /** @description Why the last check did not pass */
                            status_reason: string | null;
                            verified_at: string | null;
                            /** Format: date-time */
                            last_checked_at: string | null;
                            /** @description DKIM records only: current (its key signs), next (a rotation's new key: publish it; it signs once both next records verify) or retiring (a replaced key: keep it published until keep_until); null for other records */
                            key_state: string | null;
                            /**
                             * Format: date-time
                             * @description A retiring DKIM record: when it is dropped from this list and may be removed from DNS
                             */
                            keep_until: string | null;
                        };
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    postV1DomainsByDomainIdDkimRotate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                domainId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            domain: string;
                            /** @description Lettermint's domain status: verified (the record required for verification, the signing RSA DKIM record, is active: the domain can send) | pending_verification | failed_verification; partially_verified never occurs (one record is required) */
                            status: string;
                            /** @description Posthorn's status: pending | active | failed; active when the RSA DKIM record is verified (the Ed25519 one does not gate sending) */
                            sending_status: string;
                            /** @description Always legacy_txt: the DKIM keys are published as TXT records (Lettermint's managed_cname mode is not offered) */
                            dkim_mode: string;
                            /** @description Always false: a DKIM key rotation needs new records published (POST /v1/domains/{id}/dkim/rotate) */
                            rotation_ready: boolean;
                            /** Format: date-time */
                            status_changed_at: string | null;
                            /** Format: date-time */
                            last_checked_at: string | null;
                            dkim_selector: string;
                            /** @description Envelope sender (bounce) domain */
                            return_path_domain: string;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                            dns_records: {
                                id: string;
                                /** @description Lettermint's purpose: dkim_legacy (a DKIM key published as TXT: RSA or Ed25519) | return_path (the bounce name's SPF and MX) | dmarc; dkim_primary and dkim_secondary (managed CNAMEs) never occur */
                                purpose: string;
                                /** @description Posthorn's finer purpose: dkim (RSA) | dkim_ed25519 | spf | return_path (MX) | dmarc | tls_rpt (where TLS reports go, RFC 8460; purpose dmarc) */
                                kind: string;
                                /** @description required (the signing RSA DKIM record: the domain is verified, and can send, when it is active) | recommended (Ed25519 DKIM, SPF, return-path MX, DMARC, TLS-RPT) | migration (a DKIM rotation's next key) | deprecated (a retiring DKIM key) */
                                verification_scope: string;
                                /** @description verification_scope is required */
                                required_for_verification: boolean;
                                /** @description TXT or MX */
                                type: string;
                                /** @description Name relative to the domain, as typed in a DNS panel */
                                hostname: string;
                                fqdn: string;
                                /** @description The value to publish (for MX: the target host; any priority) */
                                content: string;
                                /** @description pending | active | failed */
                                status: string;
                                /** @description Why the last check did not pass */
                                status_reason: string | null;
                                verified_at: string | null;
                                /** Format: date-time */
                                last_checked_at: string | null;
                                /** @description DKIM records only: current (its key signs), next (a rotation's new key: publish it; it signs once both next records verify) or retiring (a replaced key: keep it published until keep_until); null for other records */
                                key_state: string | null;
                                /**
                                 * Format: date-time
                                 * @description A retiring DKIM record: when it is dropped from this list and may be removed from DNS
                                 */
                                keep_until: string | null;
                            }[];
                            projects: {
                                id: string;
                                name: string;
                            }[];
                        };
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    "postV1RoutesByRouteIdVerify-inbound-domain": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                routeId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            verified: boolean;
                            message: string;
                        };
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1DomainsByDomainIdDeliverabilityDmarc: {
        parameters: {
            query?: {
                from?: string;
                to?: string;
            };
            header?: never;
            path: {
                domainId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        domain: string;
                        from: string;
                        to: string;
                        /** @description DMARC aggregate reports received for the period */
                        reports: number;
                        /** @description The p= of the latest report's policy_published */
                        policy: string | null;
                        /** @description The addresses Posthorn sends from: POSTHORN_SENDING_ADDRESSES and those outbound connections were made from */
                        our_addresses: string[];
                        report_addresses: {
                            /** @description Where the domain's DMARC aggregate reports go: the rua=mailto: of its DMARC record */
                            dmarc: string;
                            /** @description Where its TLS reports go: the rua=mailto: of its _smtp._tls record */
                            tls_rpt: string;
                            /** @description RFC 7489 §7.1: the record the operator publishes on the report domain (POSTHORN_INBOUND_DOMAIN) so receivers send reports there */
                            authorization_record: {
                                type: string;
                                /** @description <domain>._report._dmarc.<report domain> */
                                fqdn: string;
                                /** @description *._report._dmarc.<report domain>: one record for every domain */
                                wildcard: string;
                                content: string;
                            } | null;
                        };
                        total: {
                            ours: {
                                /** @description Messages the reports counted */
                                messages: number;
                                /** @description Messages whose SPF passed and aligned with the From domain (policy_evaluated spf=pass) */
                                spf_aligned: number;
                                /** @description Messages with an aligned passing DKIM signature (policy_evaluated dkim=pass) */
                                dkim_aligned: number;
                                /** @description Messages that passed DMARC (aligned SPF or DKIM) */
                                dmarc_pass: number;
                                /** @description spf_aligned / messages (0 to 1); null with no messages */
                                spf_rate: number | null;
                                /** @description dkim_aligned / messages */
                                dkim_rate: number | null;
                                /** @description dmarc_pass / messages */
                                dmarc_rate: number | null;
                                /** @description Messages the receiver quarantined (disposition quarantine) */
                                quarantined: number;
                                /** @description Messages the receiver rejected (disposition reject) */
                                rejected: number;
                            };
                            elsewhere: {
                                /** @description Messages the reports counted */
                                messages: number;
                                /** @description Messages whose SPF passed and aligned with the From domain (policy_evaluated spf=pass) */
                                spf_aligned: number;
                                /** @description Messages with an aligned passing DKIM signature (policy_evaluated dkim=pass) */
                                dkim_aligned: number;
                                /** @description Messages that passed DMARC (aligned SPF or DKIM) */
                                dmarc_pass: number;
                                /** @description spf_aligned / messages (0 to 1); null with no messages */
                                spf_rate: number | null;
                                /** @description dkim_aligned / messages */
                                dkim_rate: number | null;
                                /** @description dmarc_pass / messages */
                                dmarc_rate: number | null;
                                /** @description Messages the receiver quarantined (disposition quarantine) */
                                quarantined: number;
                                /** @description Messages the receiver rejected (disposition reject) */
                                rejected: number;
                            };
                        };
                        /** @description What Posthorn itself sent from the domain in the period or that day, beside what the reports say */
                        posthorn: {
                            /** @description Messages Posthorn sent from the domain (statistics: sent) */
                            sent: number;
                            /** @description Recipients a receiver accepted (statistics: delivered): what the reporters' counts of our addresses are about */
                            delivered: number;
                        };
                        /** @description Each UTC day with reports or with mail Posthorn sent from the domain, oldest first */
                        days: {
                            date: string;
                            /** @description What Posthorn itself sent from the domain in the period or that day, beside what the reports say */
                            posthorn: {
                                /** @description Messages Posthorn sent from the domain (statistics: sent) */
                                sent: number;
                                /** @description Recipients a receiver accepted (statistics: delivered): what the reporters' counts of our addresses are about */
                                delivered: number;
                            };
                            reporters: {
                                /** @description The reporting organization (the receiver: google.com, Yahoo, Microsoft …) */
                                org_name: string;
                                /** @description Mail from Posthorn's sending addresses (our_addresses) */
                                ours: {
                                    /** @description Messages the reports counted */
                                    messages: number;
                                    /** @description Messages whose SPF passed and aligned with the From domain (policy_evaluated spf=pass) */
                                    spf_aligned: number;
                                    /** @description Messages with an aligned passing DKIM signature (policy_evaluated dkim=pass) */
                                    dkim_aligned: number;
                                    /** @description Messages that passed DMARC (aligned SPF or DKIM) */
                                    dmarc_pass: number;
                                    /** @description spf_aligned / messages (0 to 1); null with no messages */
                                    spf_rate: number | null;
                                    /** @description dkim_aligned / messages */
                                    dkim_rate: number | null;
                                    /** @description dmarc_pass / messages */
                                    dmarc_rate: number | null;
                                    /** @description Messages the receiver quarantined (disposition quarantine) */
                                    quarantined: number;
                                    /** @description Messages the receiver rejected (disposition reject) */
                                    rejected: number;
                                };
                                /** @description Mail from every other address: services sending for the domain that Posthorn does not know, or spoofing */
                                elsewhere: {
                                    /** @description Messages the reports counted */
                                    messages: number;
                                    /** @description Messages whose SPF passed and aligned with the From domain (policy_evaluated spf=pass) */
                                    spf_aligned: number;
                                    /** @description Messages with an aligned passing DKIM signature (policy_evaluated dkim=pass) */
                                    dkim_aligned: number;
                                    /** @description Messages that passed DMARC (aligned SPF or DKIM) */
                                    dmarc_pass: number;
                                    /** @description spf_aligned / messages (0 to 1); null with no messages */
                                    spf_rate: number | null;
                                    /** @description dkim_aligned / messages */
                                    dkim_rate: number | null;
                                    /** @description dmarc_pass / messages */
                                    dmarc_rate: number | null;
                                    /** @description Messages the receiver quarantined (disposition quarantine) */
                                    quarantined: number;
                                    /** @description Messages the receiver rejected (disposition reject) */
                                    rejected: number;
                                    /** @description Each other source IP, the most messages first */
                                    sources: {
                                        source_ip: string;
                                        /** @description Messages the reports counted */
                                        messages: number;
                                        /** @description Messages whose SPF passed and aligned with the From domain (policy_evaluated spf=pass) */
                                        spf_aligned: number;
                                        /** @description Messages with an aligned passing DKIM signature (policy_evaluated dkim=pass) */
                                        dkim_aligned: number;
                                        /** @description Messages that passed DMARC (aligned SPF or DKIM) */
                                        dmarc_pass: number;
                                        /** @description spf_aligned / messages (0 to 1); null with no messages */
                                        spf_rate: number | null;
                                        /** @description dkim_aligned / messages */
                                        dkim_rate: number | null;
                                        /** @description dmarc_pass / messages */
                                        dmarc_rate: number | null;
                                        /** @description Messages the receiver quarantined (disposition quarantine) */
                                        quarantined: number;
                                        /** @description Messages the receiver rejected (disposition reject) */
                                        rejected: number;
                                    }[];
                                };
                            }[];
                        }[];
                        advice: {
                            /** @description spf_fails | dkim_fails | unknown_source | tighten_policy */
                            kind: string;
                            source_ip: string | null;
                            /** @description Messages the advice is about */
                            messages: number;
                            /** @description What failed and the fix, in words */
                            message: string;
                        }[];
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1DomainsByDomainIdDeliverabilityTls: {
        parameters: {
            query?: {
                from?: string;
                to?: string;
            };
            header?: never;
            path: {
                domainId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        domain: string;
                        from: string;
                        to: string;
                        /** @description TLS reports received for the period */
                        reports: number;
                        days: {
                            date: string;
                            reporters: {
                                org_name: string;
                                policies: {
                                    /** @description sts | tlsa | no-policy-found */
                                    policy_type: string;
                                    policy_domain: string;
                                    /** @description Sessions that negotiated TLS as the policy asks */
                                    successful: number;
                                    /** @description Sessions that failed (total-failure-session-count) */
                                    failed: number;
                                    failures: {
                                        /** @description The receiving MX host; empty when the report names none */
                                        mx_host: string;
                                        result_type: string;
                                        sessions: number;
                                    }[];
                                }[];
                            }[];
                        }[];
                        /** @description Failed sessions per receiving MX host over the period, with their result types (RFC 8460 §4.3) */
                        by_mx: {
                            mx_host: string;
                            failed: number;
                            result_types: {
                                result_type: string;
                                sessions: number;
                            }[];
                        }[];
                        /** @description Per MX host and result type the failed sessions and the fix, the most first; kind is the result type */
                        advice: {
                            /** @description spf_fails | dkim_fails | unknown_source | tighten_policy */
                            kind: string;
                            source_ip: string | null;
                            /** @description Messages the advice is about */
                            messages: number;
                            /** @description What failed and the fix, in words */
                            message: string;
                        }[];
                        /** @description Posthorn's own delivery attempts of the domain's mail per UTC day of the period and MX host, by the TLS they used */
                        own: {
                            date: string;
                            /** @description The MX host that answered; null for attempts refused for want of TLS before any MX answered */
                            mx_host: string | null;
                            /** @description Attempts over TLS with a certificate valid for the MX name */
                            verified_tls: number;
                            /** @description Attempts over STARTTLS without a valid certificate */
                            unverified_tls: number;
                            /** @description Attempts without TLS */
                            plaintext: number;
                            /** @description Attempts not made for want of TLS (enforced TLS or MTA-STS enforce; enhanced code 4.7.5) */
                            tls_failures: number;
                        }[];
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1DeliverabilityBlocklists: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Time between two checks (POSTHORN_BLOCKLIST_INTERVAL; 0: checks are off) */
                        interval_seconds: number;
                        /** @description POSTHORN_BLOCKLIST_IP_ZONES */
                        ip_zones: string[];
                        /** @description POSTHORN_BLOCKLIST_DOMAIN_ZONES */
                        domain_zones: string[];
                        /** @description Entries listed now */
                        listed: number;
                        /** @description The server's sending addresses (shared by every team) and the team's domains, each per zone; listed first */
                        data: {
                            /** @description A sending IP address or one of the team's verified domains */
                            target: string;
                            /** @description ip | domain */
                            type: string;
                            /** @description The DNSBL (addresses) or URIBL/DBL (domains) zone it was looked up in */
                            zone: string;
                            /** @description listed | clear | error (the list refused the query or did not answer: says nothing either way) */
                            status: string;
                            listed: boolean;
                            /** @description The answer (127.0.0.x) while listed, or a refusal's (127.255.255.254 …); null when clear */
                            code: string | null;
                            /** @description What the list documents the answer to mean */
                            meaning: string | null;
                            /**
                             * Format: date-time
                             * @description Since when the target has been listed, or not listed
                             */
                            since: string;
                            /** Format: date-time */
                            checked_at: string;
                        }[];
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1DomainsByDomainIdWarmup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                domainId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        domain_id: string;
                        domain: string;
                        enabled: boolean;
                        /** @description Daily caps, day 1 first */
                        schedule: number[];
                        /** Format: date-time */
                        started_at: string | null;
                        day: number | null;
                        /** @description The schedule is over: the domain's mail is no longer capped */
                        complete: boolean;
                        cap_today: number | null;
                        broadcast_cap_today: number | null;
                        /** @description Recipients counted today (UTC) */
                        sent_today: number;
                        /** @description Messages of the domain waiting in the queue for their first attempt at a later time: held by the warm-up until the next day (or, briefly, for a per-destination slot) */
                        held: number;
                        /**
                         * Format: date-time
                         * @description When held mail is released: the next UTC midnight (broadcast a minute later)
                         */
                        next_release_at: string | null;
                        /** @description Each day of the warm-up so far */
                        days: {
                            date: string;
                            cap: number | null;
                            sent: number;
                        }[];
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    putV1DomainsByDomainIdWarmup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                domainId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Whether the domain's mail is capped by the schedule */
                    enabled: boolean;
                    /** @description Recipients per UTC day: day 1 first. Absent: the schedule kept, or the default (50, 100, 200 … doubling over 12 days) for a new warm-up */
                    schedule?: number[];
                    /**
                     * Format: date-time
                     * @description Day 1 is the UTC day of this time. Absent: kept, or now for a warm-up being turned on
                     */
                    started_at?: string;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        domain_id: string;
                        domain: string;
                        enabled: boolean;
                        /** @description Daily caps, day 1 first */
                        schedule: number[];
                        /** Format: date-time */
                        started_at: string | null;
                        day: number | null;
                        /** @description The schedule is over: the domain's mail is no longer capped */
                        complete: boolean;
                        cap_today: number | null;
                        broadcast_cap_today: number | null;
                        /** @description Recipients counted today (UTC) */
                        sent_today: number;
                        /** @description Messages of the domain waiting in the queue for their first attempt at a later time: held by the warm-up until the next day (or, briefly, for a per-destination slot) */
                        held: number;
                        /**
                         * Format: date-time
                         * @description When held mail is released: the next UTC midnight (broadcast a minute later)
                         */
                        next_release_at: string | null;
                        /** @description Each day of the warm-up so far */
                        days: {
                            date: string;
                            cap: number | null;
                            sent: number;
                        }[];
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    "getV1ProjectsByProjectIdReport-forwarding": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description Where the project's DMARC and TLS reports are forwarded; null when forwarding is off */
                            destination: string | null;
                            /** @description The destination proved it receives mail (the code mailed to it was given back); reports are forwarded only then */
                            verified: boolean;
                            /** Format: date-time */
                            verified_at: string | null;
                        };
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    "putV1ProjectsByProjectIdReport-forwarding": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    destination: string;
                };
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description Where the project's DMARC and TLS reports are forwarded; null when forwarding is off */
                            destination: string | null;
                            /** @description The destination proved it receives mail (the code mailed to it was given back); reports are forwarded only then */
                            verified: boolean;
                            /** Format: date-time */
                            verified_at: string | null;
                        };
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    "deleteV1ProjectsByProjectIdReport-forwarding": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    "postV1ProjectsByProjectIdReport-forwardingVerify": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    code: string;
                };
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description Where the project's DMARC and TLS reports are forwarded; null when forwarding is off */
                            destination: string | null;
                            /** @description The destination proved it receives mail (the code mailed to it was given back); reports are forwarded only then */
                            verified: boolean;
                            /** Format: date-time */
                            verified_at: string | null;
                        };
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    "postV1ProjectsByProjectIdReport-forwardingResend-code": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description Where the project's DMARC and TLS reports are forwarded; null when forwarding is off */
                            destination: string | null;
                            /** @description The destination proved it receives mail (the code mailed to it was given back); reports are forwarded only then */
                            verified: boolean;
                            /** Format: date-time */
                            verified_at: string | null;
                        };
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
        };
    };
    getV1Team: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        name: string;
                        /** @example free */
                        plan: string;
                        tier: number;
                        /** Format: date-time */
                        verified_at: string | null;
                        /** Format: date-time */
                        created_at: string;
                        features: string[];
                        addons: {
                            type: string;
                            expires_at: string;
                        }[];
                        domains_count: number;
                        projects_count: number;
                        members_count: number;
                        /**
                         * @description Lettermint's team type (personal or business): a Posthorn team is always business, a team of members an operator set up
                         * @constant
                         */
                        type: "business";
                        /** @description Lettermint's monthly volume included in the plan: Posthorn has no plans that include or cap a volume, always 0 */
                        included_volume: number;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    putV1Team: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description New team name; null or absent leaves it unchanged */
                    name?: string | null;
                };
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string;
                            /** @example free */
                            plan: string;
                            tier: number;
                            /** Format: date-time */
                            verified_at: string | null;
                            /** Format: date-time */
                            created_at: string;
                            features: string[];
                            addons: {
                                type: string;
                                expires_at: string;
                            }[];
                            domains_count: number;
                            projects_count: number;
                            members_count: number;
                            /**
                             * @description Lettermint's team type (personal or business): a Posthorn team is always business, a team of members an operator set up
                             * @constant
                             */
                            type: "business";
                            /** @description Lettermint's monthly volume included in the plan: Posthorn has no plans that include or cap a volume, always 0 */
                            included_volume: number;
                        };
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1TeamMembers: {
        parameters: {
            query?: {
                "page[size]"?: number;
                "page[cursor]"?: string;
                sort?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description Team member ID (used in PUT /v1/projects/{projectId}/members) */
                            id: string;
                            role: string;
                            /**
                             * Format: date-time
                             * @description When the member accepted the invitation; null while it is pending
                             */
                            joined_at: string | null;
                            /** Format: date-time */
                            created_at: string;
                            user: {
                                id: string;
                                name: string;
                                email: string;
                                avatar: string | null;
                            };
                            /** @enum {string} */
                            status: "active" | "pending";
                            /** @description = user.name */
                            name: string;
                            /** @description = user.email */
                            email: string;
                            /** @description all: the member works on every project of the team; selected: only on these, and everything of another project (its routes, messages, webhooks, suppressions, statistics) is a 404 to them, as for another team. Set with PUT /v1/team/members/{id}/assignment */
                            project_access: {
                                /** @enum {string} */
                                scope: "all" | "selected";
                                /** @description The projects of a selected scope; empty for all */
                                projects: {
                                    id: string;
                                    name: string;
                                }[];
                            };
                        }[];
                        path: string | null;
                        per_page: number;
                        next_cursor: string | null;
                        next_page_url: string | null;
                        prev_cursor: string | null;
                        prev_page_url: string | null;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    postV1TeamMembers: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    email: string;
                    name?: string;
                    /** @description A role id of GET /v1/team/roles: owner, admin, member (built in) or a custom role's id. Default member. Only an owner may invite an owner (409 owner_protected) */
                    role?: string;
                };
            };
        };
        responses: {
            /** @description Response for status 201 */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description Team member ID (used in PUT /v1/projects/{projectId}/members) */
                            id: string;
                            role: string;
                            /**
                             * Format: date-time
                             * @description When the member accepted the invitation; null while it is pending
                             */
                            joined_at: string | null;
                            /** Format: date-time */
                            created_at: string;
                            user: {
                                id: string;
                                name: string;
                                email: string;
                                avatar: string | null;
                            };
                            /** @enum {string} */
                            status: "active" | "pending";
                            /** @description = user.name */
                            name: string;
                            /** @description = user.email */
                            email: string;
                            /** @description all: the member works on every project of the team; selected: only on these, and everything of another project (its routes, messages, webhooks, suppressions, statistics) is a 404 to them, as for another team. Set with PUT /v1/team/members/{id}/assignment */
                            project_access: {
                                /** @enum {string} */
                                scope: "all" | "selected";
                                /** @description The projects of a selected scope; empty for all */
                                projects: {
                                    id: string;
                                    name: string;
                                }[];
                            };
                        };
                        /** @description For an address that has no account on this server: a one-time link (7 days) where the invited user sets a password, which accepts this invitation; shown once. null when the address has an account already (see invitation_url) */
                        password_url: string | null;
                        /** @description For an address that has an account already (a member of, or invited to, another team): a one-time link (7 days) the user opens signed in as themselves to accept; shown once. null when password_url is given */
                        invitation_url: string | null;
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1TeamMembersByMemberId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                memberId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Team member ID (used in PUT /v1/projects/{projectId}/members) */
                        id: string;
                        role: string;
                        /**
                         * Format: date-time
                         * @description When the member accepted the invitation; null while it is pending
                         */
                        joined_at: string | null;
                        /** Format: date-time */
                        created_at: string;
                        user: {
                            id: string;
                            name: string;
                            email: string;
                            avatar: string | null;
                        };
                        /** @enum {string} */
                        status: "active" | "pending";
                        /** @description = user.name */
                        name: string;
                        /** @description = user.email */
                        email: string;
                        /** @description all: the member works on every project of the team; selected: only on these, and everything of another project (its routes, messages, webhooks, suppressions, statistics) is a 404 to them, as for another team. Set with PUT /v1/team/members/{id}/assignment */
                        project_access: {
                            /** @enum {string} */
                            scope: "all" | "selected";
                            /** @description The projects of a selected scope; empty for all */
                            projects: {
                                id: string;
                                name: string;
                            }[];
                        };
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    deleteV1TeamMembersByMemberId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                memberId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1TeamRoles: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description owner, admin and member for the built-in roles; a custom role's id */
                            id: string;
                            name: string;
                            /** @enum {string|null} */
                            system_key: "owner" | "admin" | "member" | null;
                            permissions: string[];
                            /** @description Whether the caller may give this role to a member: the owner role only an owner may give */
                            assignable: boolean;
                        }[];
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    postV1TeamRoles: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    permissions: string[];
                };
            };
        };
        responses: {
            /** @description Response for status 201 */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description owner, admin and member for the built-in roles; a custom role's id */
                            id: string;
                            name: string;
                            /** @enum {string|null} */
                            system_key: "owner" | "admin" | "member" | null;
                            permissions: string[];
                            /** @description Whether the caller may give this role to a member: the owner role only an owner may give */
                            assignable: boolean;
                        };
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    putV1TeamRolesByRoleId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                roleId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    permissions?: string[];
                };
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description owner, admin and member for the built-in roles; a custom role's id */
                            id: string;
                            name: string;
                            /** @enum {string|null} */
                            system_key: "owner" | "admin" | "member" | null;
                            permissions: string[];
                            /** @description Whether the caller may give this role to a member: the owner role only an owner may give */
                            assignable: boolean;
                        };
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    deleteV1TeamRolesByRoleId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                roleId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    putV1TeamMembersByMemberIdAssignment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                memberId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    role_id: string;
                    project_access: {
                        /** @enum {string} */
                        scope: "all" | "selected";
                        /** @description The projects of scope selected (at least one); absent or empty for all */
                        project_ids?: string[];
                    };
                };
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Team member ID (used in PUT /v1/projects/{projectId}/members) */
                        id: string;
                        role: string;
                        /**
                         * Format: date-time
                         * @description When the member accepted the invitation; null while it is pending
                         */
                        joined_at: string | null;
                        /** Format: date-time */
                        created_at: string;
                        user: {
                            id: string;
                            name: string;
                            email: string;
                            avatar: string | null;
                        };
                        /** @enum {string} */
                        status: "active" | "pending";
                        /** @description = user.name */
                        name: string;
                        /** @description = user.email */
                        email: string;
                        /** @description all: the member works on every project of the team; selected: only on these, and everything of another project (its routes, messages, webhooks, suppressions, statistics) is a 404 to them, as for another team. Set with PUT /v1/team/members/{id}/assignment */
                        project_access: {
                            /** @enum {string} */
                            scope: "all" | "selected";
                            /** @description The projects of a selected scope; empty for all */
                            projects: {
                                id: string;
                                name: string;
                            }[];
                        };
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1TeamTokens: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string;
                            /** @description The role whose permissions the token has (they follow the role's changes); null when it has its own permissions */
                            role_id: string | null;
                            /** @description What the token may do now: its role's permissions, or its own */
                            permissions: string[];
                            /** @description all: the member works on every project of the team; selected: only on these, and everything of another project (its routes, messages, webhooks, suppressions, statistics) is a 404 to them, as for another team. Set with PUT /v1/team/members/{id}/assignment */
                            project_access: {
                                /** @enum {string} */
                                scope: "all" | "selected";
                                /** @description The projects of a selected scope; empty for all */
                                projects: {
                                    id: string;
                                    name: string;
                                }[];
                            };
                            /**
                             * Format: date-time
                             * @description After this the token is refused (401); null: it does not expire
                             */
                            expires_at: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description When its current secret was made
                             */
                            rotated_at: string;
                            /** Format: date-time */
                            last_used_at: string | null;
                            last_used_ip: string | null;
                        }[];
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    postV1TeamTokens: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** @description A role of GET /v1/team/roles; or give permissions instead */
                    role_id?: string;
                    /** @description The token's own permission names; or give role_id instead */
                    permissions?: string[];
                    /** @description Only these projects of the team (everything of another is a 404 to the token); absent or empty: all */
                    project_ids?: string[];
                    /**
                     * Format: date-time
                     * @description When the token stops working; absent: never
                     */
                    expires_at?: string;
                };
            };
        };
        responses: {
            /** @description Response for status 201 */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string;
                            /** @description The role whose permissions the token has (they follow the role's changes); null when it has its own permissions */
                            role_id: string | null;
                            /** @description What the token may do now: its role's permissions, or its own */
                            permissions: string[];
                            /** @description all: the member works on every project of the team; selected: only on these, and everything of another project (its routes, messages, webhooks, suppressions, statistics) is a 404 to them, as for another team. Set with PUT /v1/team/members/{id}/assignment */
                            project_access: {
                                /** @enum {string} */
                                scope: "all" | "selected";
                                /** @description The projects of a selected scope; empty for all */
                                projects: {
                                    id: string;
                                    name: string;
                                }[];
                            };
                            /**
                             * Format: date-time
                             * @description After this the token is refused (401); null: it does not expire
                             */
                            expires_at: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description When its current secret was made
                             */
                            rotated_at: string;
                            /** Format: date-time */
                            last_used_at: string | null;
                            last_used_ip: string | null;
                        };
                        /** @description The token (ph_team_…), for Authorization: Bearer; shown here only, stored as its SHA-256 */
                        token: string;
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    postV1TeamTokensByTokenIdRotate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tokenId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string;
                            /** @description The role whose permissions the token has (they follow the role's changes); null when it has its own permissions */
                            role_id: string | null;
                            /** @description What the token may do now: its role's permissions, or its own */
                            permissions: string[];
                            /** @description all: the member works on every project of the team; selected: only on these, and everything of another project (its routes, messages, webhooks, suppressions, statistics) is a 404 to them, as for another team. Set with PUT /v1/team/members/{id}/assignment */
                            project_access: {
                                /** @enum {string} */
                                scope: "all" | "selected";
                                /** @description The projects of a selected scope; empty for all */
                                projects: {
                                    id: string;
                                    name: string;
                                }[];
                            };
                            /**
                             * Format: date-time
                             * @description After this the token is refused (401); null: it does not expire
                             */
                            expires_at: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description When its current secret was made
                             */
                            rotated_at: string;
                            /** Format: date-time */
                            last_used_at: string | null;
                            last_used_ip: string | null;
                        };
                        /** @description The token (ph_team_…), for Authorization: Bearer; shown here only, stored as its SHA-256 */
                        token: string;
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    deleteV1TeamTokensByTokenId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tokenId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    "getV1TeamAudit-log": {
        parameters: {
            query?: {
                "page[size]"?: number;
                "page[cursor]"?: string;
                "filter[actor]"?: string;
                "filter[target]"?: string;
                "filter[operation]"?: string;
                "filter[from]"?: string;
                "filter[to]"?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            actor: {
                                /** @enum {string} */
                                kind: "user" | "team_token" | "named_token" | "cli";
                                id: string | null;
                                name: string | null;
                            };
                            /** @description The method and route template of the change, as in the OpenAPI document ("DELETE /v1/domains/{id}"), or "cli …" for the command line */
                            operation: string;
                            /** @description The path parameters of the change (its targets), by name */
                            target_ids: {
                                [key: string]: string;
                            };
                            /** @description The request body's fields; secret ones (passwords, tokens, secrets, keys, codes) as "[redacted]", long or binary values as "[omitted]" */
                            changes: {
                                [key: string]: unknown;
                            };
                            /** @description The HTTP status of the change's answer (only successful changes are logged) */
                            status: number;
                            ip: string | null;
                            user_agent: string | null;
                            /** Format: date-time */
                            created_at: string;
                        }[];
                        path: string | null;
                        per_page: number;
                        next_cursor: string | null;
                        next_page_url: string | null;
                        prev_cursor: string | null;
                        prev_page_url: string | null;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1Projects: {
        parameters: {
            query?: {
                "page[size]"?: number;
                "page[cursor]"?: string;
                sort?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string;
                            smtp_enabled: boolean;
                            /** @description Always false: Posthorn keeps message content (retention decides how long); Lettermint's field */
                            redact_email_content: boolean;
                            /** @description The default transactional route, used when a send names no route */
                            default_route_id: string | null;
                            /** Format: date-time */
                            token_generated_at: string;
                            /** Format: date-time */
                            token_last_used_at: string | null;
                            token_last_used_ip: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                            /** @description The project's routes, without the nested project (the spec leaves it empty) */
                            routes: {
                                id: string;
                                project_id: string;
                                slug: string;
                                name: string;
                                /** @enum {string} */
                                route_type: "transactional" | "broadcast" | "inbound";
                                is_default: boolean;
                                /** Format: date-time */
                                created_at: string;
                                /** Format: date-time */
                                updated_at: string;
                                /** @description Generated address on the service's inbound domain (inbound routes) */
                                inbound_address: string | null;
                                /** @description Custom inbound domain (inbound routes) */
                                inbound_domain: string | null;
                                /** Format: date-time */
                                inbound_domain_verified_at: string | null;
                                /** @description Spam score at or above which inbound mail is rejected */
                                inbound_spam_threshold: number | null;
                                /** @description inline (base64 in the webhook) or url (signed, expiring links) */
                                attachment_delivery: string;
                                track_opens: boolean;
                                track_clicks: boolean;
                                /** @description The settings that apply to the route's type (none for an inbound route, whose attachment_delivery is the route's field of that name) */
                                settings: {
                                    /** @description Broadcast routes: no hosted unsubscribe link or List-Unsubscribe header is added (default false) */
                                    disable_hosted_unsubscribe?: boolean;
                                    /** @description Open tracking of the route's mail unless a send says otherwise (default false) */
                                    track_opens?: boolean;
                                    /** @description Click tracking of the route's mail unless a send says otherwise (default false) */
                                    track_clicks?: boolean;
                                    /** @description A send with only HTML gets a text part made from it (default false) */
                                    generate_plaintext_fallback?: boolean;
                                    /** @description X-Auto-Response-Suppress: All on its mail; auto-replies to it are recorded (auto_replied) but not sent to webhooks (default false) */
                                    suppress_auto_responders?: boolean;
                                    /** @description Recipients at disposable domains are suppressed at acceptance, reason disposable_email; no suppression is added (default false) */
                                    suppress_disposable_recipients?: boolean;
                                    /** @enum {string} */
                                    tls?: "opportunistic" | "enforced";
                                    /** @description Bodies, source and attachment contents are dropped once every recipient is final; reading them is a 410 (default false) */
                                    redact_email_content?: boolean;
                                };
                                webhooks_count: number;
                                /** @description Distinct addresses suppressed for this route (team, project and route scopes) */
                                suppressed_recipients_count: number;
                            }[];
                            routes_count: number;
                            domains: {
                                id: string;
                                domain: string;
                                /** Format: date-time */
                                status_changed_at: string | null;
                                /** Format: date-time */
                                created_at: string;
                            }[];
                            domains_count: number;
                            team_members: {
                                /** @description Team member ID (used in PUT /v1/projects/{projectId}/members) */
                                id: string;
                                role: string;
                                /**
                                 * Format: date-time
                                 * @description When the member accepted the invitation; null while it is pending
                                 */
                                joined_at: string | null;
                                /** Format: date-time */
                                created_at: string;
                                user: {
                                    id: string;
                                    name: string;
                                    email: string;
                                    avatar: string | null;
                                };
                                /** @enum {string} */
                                status: "active" | "pending";
                            }[];
                            team_members_count: number;
                            last_28_days: {
                                /** @description Outbound messages on transactional routes */
                                messages_transactional: number;
                                /** @description Outbound messages on broadcast routes */
                                messages_broadcast: number;
                                /** @description Inbound messages */
                                messages_inbound: number;
                                /** @description Percent (0–100) of outbound messages with a final outcome that were delivered; 0 when none */
                                deliverability: number;
                                /** @description Opens (pixel loads) by people on the window's messages */
                                opens_human: number;
                                /** @description Opens classified as machines (privacy proxies, scanners, prefetch) */
                                opens_machine: number;
                                /** @description Clicks of tracked links by people */
                                clicks_human: number;
                                /** @description Clicks classified as machines (link scanners, bursts, non-browser clients) */
                                clicks_machine: number;
                            };
                        }[];
                        path: string | null;
                        per_page: number;
                        next_cursor: string | null;
                        next_page_url: string | null;
                        prev_cursor: string | null;
                        prev_page_url: string | null;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    postV1Projects: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** @description Allow SMTP submission with the project token */
                    smtp_enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Response for status 201 */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string;
                            smtp_enabled: boolean;
                            /** @description Always false: Posthorn keeps message content (retention decides how long); Lettermint's field */
                            redact_email_content: boolean;
                            /** @description The default transactional route, used when a send names no route */
                            default_route_id: string | null;
                            /** Format: date-time */
                            token_generated_at: string;
                            /** Format: date-time */
                            token_last_used_at: string | null;
                            token_last_used_ip: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                            /** @description The project's routes, without the nested project (the spec leaves it empty) */
                            routes: {
                                id: string;
                                project_id: string;
                                slug: string;
                                name: string;
                                /** @enum {string} */
                                route_type: "transactional" | "broadcast" | "inbound";
                                is_default: boolean;
                                /** Format: date-time */
                                created_at: string;
                                /** Format: date-time */
                                updated_at: string;
                                /** @description Generated address on the service's inbound domain (inbound routes) */
                                inbound_address: string | null;
                                /** @description Custom inbound domain (inbound routes) */
                                inbound_domain: string | null;
                                /** Format: date-time */
                                inbound_domain_verified_at: string | null;
                                /** @description Spam score at or above which inbound mail is rejected */
                                inbound_spam_threshold: number | null;
                                /** @description inline (base64 in the webhook) or url (signed, expiring links) */
                                attachment_delivery: string;
                                track_opens: boolean;
                                track_clicks: boolean;
                                /** @description The settings that apply to the route's type (none for an inbound route, whose attachment_delivery is the route's field of that name) */
                                settings: {
                                    /** @description Broadcast routes: no hosted unsubscribe link or List-Unsubscribe header is added (default false) */
                                    disable_hosted_unsubscribe?: boolean;
                                    /** @description Open tracking of the route's mail unless a send says otherwise (default false) */
                                    track_opens?: boolean;
                                    /** @description Click tracking of the route's mail unless a send says otherwise (default false) */
                                    track_clicks?: boolean;
                                    /** @description A send with only HTML gets a text part made from it (default false) */
                                    generate_plaintext_fallback?: boolean;
                                    /** @description X-Auto-Response-Suppress: All on its mail; auto-replies to it are recorded (auto_replied) but not sent to webhooks (default false) */
                                    suppress_auto_responders?: boolean;
                                    /** @description Recipients at disposable domains are suppressed at acceptance, reason disposable_email; no suppression is added (default false) */
                                    suppress_disposable_recipients?: boolean;
                                    /** @enum {string} */
                                    tls?: "opportunistic" | "enforced";
                                    /** @description Bodies, source and attachment contents are dropped once every recipient is final; reading them is a 410 (default false) */
                                    redact_email_content?: boolean;
                                };
                                webhooks_count: number;
                                /** @description Distinct addresses suppressed for this route (team, project and route scopes) */
                                suppressed_recipients_count: number;
                            }[];
                            routes_count: number;
                            domains: {
                                id: string;
                                domain: string;
                                /** Format: date-time */
                                status_changed_at: string | null;
                                /** Format: date-time */
                                created_at: string;
                            }[];
                            domains_count: number;
                            team_members: {
                                /** @description Team member ID (used in PUT /v1/projects/{projectId}/members) */
                                id: string;
                                role: string;
                                /**
                                 * Format: date-time
                                 * @description When the member accepted the invitation; null while it is pending
                                 */
                                joined_at: string | null;
                                /** Format: date-time */
                                created_at: string;
                                user: {
                                    id: string;
                                    name: string;
                                    email: string;
                                    avatar: string | null;
                                };
                                /** @enum {string} */
                                status: "active" | "pending";
                            }[];
                            team_members_count: number;
                            last_28_days: {
                                /** @description Outbound messages on transactional routes */
                                messages_transactional: number;
                                /** @description Outbound messages on broadcast routes */
                                messages_broadcast: number;
                                /** @description Inbound messages */
                                messages_inbound: number;
                                /** @description Percent (0–100) of outbound messages with a final outcome that were delivered; 0 when none */
                                deliverability: number;
                                /** @description Opens (pixel loads) by people on the window's messages */
                                opens_human: number;
                                /** @description Opens classified as machines (privacy proxies, scanners, prefetch) */
                                opens_machine: number;
                                /** @description Clicks of tracked links by people */
                                clicks_human: number;
                                /** @description Clicks classified as machines (link scanners, bursts, non-browser clients) */
                                clicks_machine: number;
                            };
                        };
                        /** @description The project sending token (x-service-token); shown only here */
                        token: string;
                        /** @description = token, under the name Lettermint's SDKs read */
                        api_token: string;
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1ProjectsByProjectId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        name: string;
                        smtp_enabled: boolean;
                        /** @description Always false: Posthorn keeps message content (retention decides how long); Lettermint's field */
                        redact_email_content: boolean;
                        /** @description The default transactional route, used when a send names no route */
                        default_route_id: string | null;
                        /** Format: date-time */
                        token_generated_at: string;
                        /** Format: date-time */
                        token_last_used_at: string | null;
                        token_last_used_ip: string | null;
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        updated_at: string;
                        /** @description The project's routes, without the nested project (the spec leaves it empty) */
                        routes: {
                            id: string;
                            project_id: string;
                            slug: string;
                            name: string;
                            /** @enum {string} */
                            route_type: "transactional" | "broadcast" | "inbound";
                            is_default: boolean;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                            /** @description Generated address on the service's inbound domain (inbound routes) */
                            inbound_address: string | null;
                            /** @description Custom inbound domain (inbound routes) */
                            inbound_domain: string | null;
                            /** Format: date-time */
                            inbound_domain_verified_at: string | null;
                            /** @description Spam score at or above which inbound mail is rejected */
                            inbound_spam_threshold: number | null;
                            /** @description inline (base64 in the webhook) or url (signed, expiring links) */
                            attachment_delivery: string;
                            track_opens: boolean;
                            track_clicks: boolean;
                            /** @description The settings that apply to the route's type (none for an inbound route, whose attachment_delivery is the route's field of that name) */
                            settings: {
                                /** @description Broadcast routes: no hosted unsubscribe link or List-Unsubscribe header is added (default false) */
                                disable_hosted_unsubscribe?: boolean;
                                /** @description Open tracking of the route's mail unless a send says otherwise (default false) */
                                track_opens?: boolean;
                                /** @description Click tracking of the route's mail unless a send says otherwise (default false) */
                                track_clicks?: boolean;
                                /** @description A send with only HTML gets a text part made from it (default false) */
                                generate_plaintext_fallback?: boolean;
                                /** @description X-Auto-Response-Suppress: All on its mail; auto-replies to it are recorded (auto_replied) but not sent to webhooks (default false) */
                                suppress_auto_responders?: boolean;
                                /** @description Recipients at disposable domains are suppressed at acceptance, reason disposable_email; no suppression is added (default false) */
                                suppress_disposable_recipients?: boolean;
                                /** @enum {string} */
                                tls?: "opportunistic" | "enforced";
                                /** @description Bodies, source and attachment contents are dropped once every recipient is final; reading them is a 410 (default false) */
                                redact_email_content?: boolean;
                            };
                            webhooks_count: number;
                            /** @description Distinct addresses suppressed for this route (team, project and route scopes) */
                            suppressed_recipients_count: number;
                        }[];
                        routes_count: number;
                        domains: {
                            id: string;
                            domain: string;
                            /** Format: date-time */
                            status_changed_at: string | null;
                            /** Format: date-time */
                            created_at: string;
                        }[];
                        domains_count: number;
                        team_members: {
                            /** @description Team member ID (used in PUT /v1/projects/{projectId}/members) */
                            id: string;
                            role: string;
                            /**
                             * Format: date-time
                             * @description When the member accepted the invitation; null while it is pending
                             */
                            joined_at: string | null;
                            /** Format: date-time */
                            created_at: string;
                            user: {
                                id: string;
                                name: string;
                                email: string;
                                avatar: string | null;
                            };
                            /** @enum {string} */
                            status: "active" | "pending";
                        }[];
                        team_members_count: number;
                        last_28_days: {
                            /** @description Outbound messages on transactional routes */
                            messages_transactional: number;
                            /** @description Outbound messages on broadcast routes */
                            messages_broadcast: number;
                            /** @description Inbound messages */
                            messages_inbound: number;
                            /** @description Percent (0–100) of outbound messages with a final outcome that were delivered; 0 when none */
                            deliverability: number;
                            /** @description Opens (pixel loads) by people on the window's messages */
                            opens_human: number;
                            /** @description Opens classified as machines (privacy proxies, scanners, prefetch) */
                            opens_machine: number;
                            /** @description Clicks of tracked links by people */
                            clicks_human: number;
                            /** @description Clicks classified as machines (link scanners, bursts, non-browser clients) */
                            clicks_machine: number;
                        };
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    putV1ProjectsByProjectId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description null or absent leaves it unchanged */
                    name?: string | null;
                    /** @description Allow SMTP submission with the project token */
                    smtp_enabled?: boolean | null;
                };
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string;
                            smtp_enabled: boolean;
                            /** @description Always false: Posthorn keeps message content (retention decides how long); Lettermint's field */
                            redact_email_content: boolean;
                            /** @description The default transactional route, used when a send names no route */
                            default_route_id: string | null;
                            /** Format: date-time */
                            token_generated_at: string;
                            /** Format: date-time */
                            token_last_used_at: string | null;
                            token_last_used_ip: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                            /** @description The project's routes, without the nested project (the spec leaves it empty) */
                            routes: {
                                id: string;
                                project_id: string;
                                slug: string;
                                name: string;
                                /** @enum {string} */
                                route_type: "transactional" | "broadcast" | "inbound";
                                is_default: boolean;
                                /** Format: date-time */
                                created_at: string;
                                /** Format: date-time */
                                updated_at: string;
                                /** @description Generated address on the service's inbound domain (inbound routes) */
                                inbound_address: string | null;
                                /** @description Custom inbound domain (inbound routes) */
                                inbound_domain: string | null;
                                /** Format: date-time */
                                inbound_domain_verified_at: string | null;
                                /** @description Spam score at or above which inbound mail is rejected */
                                inbound_spam_threshold: number | null;
                                /** @description inline (base64 in the webhook) or url (signed, expiring links) */
                                attachment_delivery: string;
                                track_opens: boolean;
                                track_clicks: boolean;
                                /** @description The settings that apply to the route's type (none for an inbound route, whose attachment_delivery is the route's field of that name) */
                                settings: {
                                    /** @description Broadcast routes: no hosted unsubscribe link or List-Unsubscribe header is added (default false) */
                                    disable_hosted_unsubscribe?: boolean;
                                    /** @description Open tracking of the route's mail unless a send says otherwise (default false) */
                                    track_opens?: boolean;
                                    /** @description Click tracking of the route's mail unless a send says otherwise (default false) */
                                    track_clicks?: boolean;
                                    /** @description A send with only HTML gets a text part made from it (default false) */
                                    generate_plaintext_fallback?: boolean;
                                    /** @description X-Auto-Response-Suppress: All on its mail; auto-replies to it are recorded (auto_replied) but not sent to webhooks (default false) */
                                    suppress_auto_responders?: boolean;
                                    /** @description Recipients at disposable domains are suppressed at acceptance, reason disposable_email; no suppression is added (default false) */
                                    suppress_disposable_recipients?: boolean;
                                    /** @enum {string} */
                                    tls?: "opportunistic" | "enforced";
                                    /** @description Bodies, source and attachment contents are dropped once every recipient is final; reading them is a 410 (default false) */
                                    redact_email_content?: boolean;
                                };
                                webhooks_count: number;
                                /** @description Distinct addresses suppressed for this route (team, project and route scopes) */
                                suppressed_recipients_count: number;
                            }[];
                            routes_count: number;
                            domains: {
                                id: string;
                                domain: string;
                                /** Format: date-time */
                                status_changed_at: string | null;
                                /** Format: date-time */
                                created_at: string;
                            }[];
                            domains_count: number;
                            team_members: {
                                /** @description Team member ID (used in PUT /v1/projects/{projectId}/members) */
                                id: string;
                                role: string;
                                /**
                                 * Format: date-time
                                 * @description When the member accepted the invitation; null while it is pending
                                 */
                                joined_at: string | null;
                                /** Format: date-time */
                                created_at: string;
                                user: {
                                    id: string;
                                    name: string;
                                    email: string;
                                    avatar: string | null;
                                };
                                /** @enum {string} */
                                status: "active" | "pending";
                            }[];
                            team_members_count: number;
                            last_28_days: {
                                /** @description Outbound messages on transactional routes */
                                messages_transactional: number;
                                /** @description Outbound messages on broadcast routes */
                                messages_broadcast: number;
                                /** @description Inbound messages */
                                messages_inbound: number;
                                /** @description Percent (0–100) of outbound messages with a final outcome that were delivered; 0 when none */
                                deliverability: number;
                                /** @description Opens (pixel loads) by people on the window's messages */
                                opens_human: number;
                                /** @description Opens classified as machines (privacy proxies, scanners, prefetch) */
                                opens_machine: number;
                                /** @description Clicks of tracked links by people */
                                clicks_human: number;
                                /** @description Clicks classified as machines (link scanners, bursts, non-browser clients) */
                                clicks_machine: number;
                            };
                        };
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    deleteV1ProjectsByProjectId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    putV1ProjectsByProjectIdMembers: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The complete new member list (replaces the current one) */
                    team_member_ids: string[];
                };
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string;
                            smtp_enabled: boolean;
                            /** @description Always false: Posthorn keeps message content (retention decides how long); Lettermint's field */
                            redact_email_content: boolean;
                            /** @description The default transactional route, used when a send names no route */
                            default_route_id: string | null;
                            /** Format: date-time */
                            token_generated_at: string;
                            /** Format: date-time */
                            token_last_used_at: string | null;
                            token_last_used_ip: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                            /** @description The project's routes, without the nested project (the spec leaves it empty) */
                            routes: {
                                id: string;
                                project_id: string;
                                slug: string;
                                name: string;
                                /** @enum {string} */
                                route_type: "transactional" | "broadcast" | "inbound";
                                is_default: boolean;
                                /** Format: date-time */
                                created_at: string;
                                /** Format: date-time */
                                updated_at: string;
                                /** @description Generated address on the service's inbound domain (inbound routes) */
                                inbound_address: string | null;
                                /** @description Custom inbound domain (inbound routes) */
                                inbound_domain: string | null;
                                /** Format: date-time */
                                inbound_domain_verified_at: string | null;
                                /** @description Spam score at or above which inbound mail is rejected */
                                inbound_spam_threshold: number | null;
                                /** @description inline (base64 in the webhook) or url (signed, expiring links) */
                                attachment_delivery: string;
                                track_opens: boolean;
                                track_clicks: boolean;
                                /** @description The settings that apply to the route's type (none for an inbound route, whose attachment_delivery is the route's field of that name) */
                                settings: {
                                    /** @description Broadcast routes: no hosted unsubscribe link or List-Unsubscribe header is added (default false) */
                                    disable_hosted_unsubscribe?: boolean;
                                    /** @description Open tracking of the route's mail unless a send says otherwise (default false) */
                                    track_opens?: boolean;
                                    /** @description Click tracking of the route's mail unless a send says otherwise (default false) */
                                    track_clicks?: boolean;
                                    /** @description A send with only HTML gets a text part made from it (default false) */
                                    generate_plaintext_fallback?: boolean;
                                    /** @description X-Auto-Response-Suppress: All on its mail; auto-replies to it are recorded (auto_replied) but not sent to webhooks (default false) */
                                    suppress_auto_responders?: boolean;
                                    /** @description Recipients at disposable domains are suppressed at acceptance, reason disposable_email; no suppression is added (default false) */
                                    suppress_disposable_recipients?: boolean;
                                    /** @enum {string} */
                                    tls?: "opportunistic" | "enforced";
                                    /** @description Bodies, source and attachment contents are dropped once every recipient is final; reading them is a 410 (default false) */
                                    redact_email_content?: boolean;
                                };
                                webhooks_count: number;
                                /** @description Distinct addresses suppressed for this route (team, project and route scopes) */
                                suppressed_recipients_count: number;
                            }[];
                            routes_count: number;
                            domains: {
                                id: string;
                                domain: string;
                                /** Format: date-time */
                                status_changed_at: string | null;
                                /** Format: date-time */
                                created_at: string;
                            }[];
                            domains_count: number;
                            team_members: {
                                /** @description Team member ID (used in PUT /v1/projects/{projectId}/members) */
                                id: string;
                                role: string;
                                /**
                                 * Format: date-time
                                 * @description When the member accepted the invitation; null while it is pending
                                 */
                                joined_at: string | null;
                                /** Format: date-time */
                                created_at: string;
                                user: {
                                    id: string;
                                    name: string;
                                    email: string;
                                    avatar: string | null;
                                };
                                /** @enum {string} */
                                status: "active" | "pending";
                            }[];
                            team_members_count: number;
                            last_28_days: {
                                /** @description Outbound messages on transactional routes */
                                messages_transactional: number;
                                /** @description Outbound messages on broadcast routes */
                                messages_broadcast: number;
                                /** @description Inbound messages */
                                messages_inbound: number;
                                /** @description Percent (0–100) of outbound messages with a final outcome that were delivered; 0 when none */
                                deliverability: number;
                                /** @description Opens (pixel loads) by people on the window's messages */
                                opens_human: number;
                                /** @description Opens classified as machines (privacy proxies, scanners, prefetch) */
                                opens_machine: number;
                                /** @description Clicks of tracked links by people */
                                clicks_human: number;
                                /** @description Clicks classified as machines (link scanners, bursts, non-browser clients) */
                                clicks_machine: number;
                            };
                        };
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    "postV1ProjectsByProjectIdRotate-token": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            name: string;
                            smtp_enabled: boolean;
                            /** @description Always false: Posthorn keeps message content (retention decides how long); Lettermint's field */
                            redact_email_content: boolean;
                            /** @description The default transactional route, used when a send names no route */
                            default_route_id: string | null;
                            /** Format: date-time */
                            token_generated_at: string;
                            /** Format: date-time */
                            token_last_used_at: string | null;
                            token_last_used_ip: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                            /** @description The project's routes, without the nested project (the spec leaves it empty) */
                            routes: {
                                id: string;
                                project_id: string;
                                slug: string;
                                name: string;
                                /** @enum {string} */
                                route_type: "transactional" | "broadcast" | "inbound";
                                is_default: boolean;
                                /** Format: date-time */
                                created_at: string;
                                /** Format: date-time */
                                updated_at: string;
                                /** @description Generated address on the service's inbound domain (inbound routes) */
                                inbound_address: string | null;
                                /** @description Custom inbound domain (inbound routes) */
                                inbound_domain: string | null;
                                /** Format: date-time */
                                inbound_domain_verified_at: string | null;
                                /** @description Spam score at or above which inbound mail is rejected */
                                inbound_spam_threshold: number | null;
                                /** @description inline (base64 in the webhook) or url (signed, expiring links) */
                                attachment_delivery: string;
                                track_opens: boolean;
                                track_clicks: boolean;
                                /** @description The settings that apply to the route's type (none for an inbound route, whose attachment_delivery is the route's field of that name) */
                                settings: {
                                    /** @description Broadcast routes: no hosted unsubscribe link or List-Unsubscribe header is added (default false) */
                                    disable_hosted_unsubscribe?: boolean;
                                    /** @description Open tracking of the route's mail unless a send says otherwise (default false) */
                                    track_opens?: boolean;
                                    /** @description Click tracking of the route's mail unless a send says otherwise (default false) */
                                    track_clicks?: boolean;
                                    /** @description A send with only HTML gets a text part made from it (default false) */
                                    generate_plaintext_fallback?: boolean;
                                    /** @description X-Auto-Response-Suppress: All on its mail; auto-replies to it are recorded (auto_replied) but not sent to webhooks (default false) */
                                    suppress_auto_responders?: boolean;
                                    /** @description Recipients at disposable domains are suppressed at acceptance, reason disposable_email; no suppression is added (default false) */
                                    suppress_disposable_recipients?: boolean;
                                    /** @enum {string} */
                                    tls?: "opportunistic" | "enforced";
                                    /** @description Bodies, source and attachment contents are dropped once every recipient is final; reading them is a 410 (default false) */
                                    redact_email_content?: boolean;
                                };
                                webhooks_count: number;
                                /** @description Distinct addresses suppressed for this route (team, project and route scopes) */
                                suppressed_recipients_count: number;
                            }[];
                            routes_count: number;
                            domains: {
                                id: string;
                                domain: string;
                                /** Format: date-time */
                                status_changed_at: string | null;
                                /** Format: date-time */
                                created_at: string;
                            }[];
                            domains_count: number;
                            team_members: {
                                /** @description Team member ID (used in PUT /v1/projects/{projectId}/members) */
                                id: string;
                                role: string;
                                /**
                                 * Format: date-time
                                 * @description When the member accepted the invitation; null while it is pending
                                 */
                                joined_at: string | null;
                                /** Format: date-time */
                                created_at: string;
                                user: {
                                    id: string;
                                    name: string;
                                    email: string;
                                    avatar: string | null;
                                };
                                /** @enum {string} */
                                status: "active" | "pending";
                            }[];
                            team_members_count: number;
                            last_28_days: {
                                /** @description Outbound messages on transactional routes */
                                messages_transactional: number;
                                /** @description Outbound messages on broadcast routes */
                                messages_broadcast: number;
                                /** @description Inbound messages */
                                messages_inbound: number;
                                /** @description Percent (0–100) of outbound messages with a final outcome that were delivered; 0 when none */
                                deliverability: number;
                                /** @description Opens (pixel loads) by people on the window's messages */
                                opens_human: number;
                                /** @description Opens classified as machines (privacy proxies, scanners, prefetch) */
                                opens_machine: number;
                                /** @description Clicks of tracked links by people */
                                clicks_human: number;
                                /** @description Clicks classified as machines (link scanners, bursts, non-browser clients) */
                                clicks_machine: number;
                            };
                        };
                        /** @description The new project sending token; the old one stopped working */
                        new_token: string;
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1ProjectsByProjectIdRoutes: {
        parameters: {
            query?: {
                "page[size]"?: number;
                "page[cursor]"?: string;
                sort?: string;
            };
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            project_id: string;
                            slug: string;
                            name: string;
                            /** @enum {string} */
                            route_type: "transactional" | "broadcast" | "inbound";
                            is_default: boolean;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                            /** @description Generated address on the service's inbound domain (inbound routes) */
                            inbound_address: string | null;
                            /** @description Custom inbound domain (inbound routes) */
                            inbound_domain: string | null;
                            /** Format: date-time */
                            inbound_domain_verified_at: string | null;
                            /** @description Spam score at or above which inbound mail is rejected */
                            inbound_spam_threshold: number | null;
                            /** @description inline (base64 in the webhook) or url (signed, expiring links) */
                            attachment_delivery: string;
                            track_opens: boolean;
                            track_clicks: boolean;
                            /** @description The settings that apply to the route's type (none for an inbound route, whose attachment_delivery is the route's field of that name) */
                            settings: {
                                /** @description Broadcast routes: no hosted unsubscribe link or List-Unsubscribe header is added (default false) */
                                disable_hosted_unsubscribe?: boolean;
                                /** @description Open tracking of the route's mail unless a send says otherwise (default false) */
                                track_opens?: boolean;
                                /** @description Click tracking of the route's mail unless a send says otherwise (default false) */
                                track_clicks?: boolean;
                                /** @description A send with only HTML gets a text part made from it (default false) */
                                generate_plaintext_fallback?: boolean;
                                /** @description X-Auto-Response-Suppress: All on its mail; auto-replies to it are recorded (auto_replied) but not sent to webhooks (default false) */
                                suppress_auto_responders?: boolean;
                                /** @description Recipients at disposable domains are suppressed at acceptance, reason disposable_email; no suppression is added (default false) */
                                suppress_disposable_recipients?: boolean;
                                /** @enum {string} */
                                tls?: "opportunistic" | "enforced";
                                /** @description Bodies, source and attachment contents are dropped once every recipient is final; reading them is a 410 (default false) */
                                redact_email_content?: boolean;
                            };
                            webhooks_count: number;
                            /** @description Distinct addresses suppressed for this route (team, project and route scopes) */
                            suppressed_recipients_count: number;
                            /** @description Only when inbound_domain is set: the MX and the TXT verification record to publish before POST /v1/routes/{id}/verify-inbound-domain */
                            inbound_domain_records?: {
                                /** @enum {string} */
                                purpose: "inbound_mx" | "inbound_verification";
                                /** @enum {string} */
                                type: "MX" | "TXT";
                                /** @description Absolute name of the record */
                                fqdn: string;
                                /** @description The value to publish (for MX: the target host, as the only or most preferred MX) */
                                content: string;
                            }[];
                            project?: {
                                id: string;
                                name: string;
                                smtp_enabled: boolean;
                                /** @description Always false: Posthorn keeps message content (retention decides how long); Lettermint's field */
                                redact_email_content: boolean;
                                /** @description The default transactional route, used when a send names no route */
                                default_route_id: string | null;
                                /** Format: date-time */
                                token_generated_at: string;
                                /** Format: date-time */
                                token_last_used_at: string | null;
                                token_last_used_ip: string | null;
                                /** Format: date-time */
                                created_at: string;
                                /** Format: date-time */
                                updated_at: string;
                                /** @description The project's routes, without the nested project (the spec leaves it empty) */
                                routes: {
                                    id: string;
                                    project_id: string;
                                    slug: string;
                                    name: string;
                                    /** @enum {string} */
                                    route_type: "transactional" | "broadcast" | "inbound";
                                    is_default: boolean;
                                    /** Format: date-time */
                                    created_at: string;
                                    /** Format: date-time */
                                    updated_at: string;
                                    /** @description Generated address on the service's inbound domain (inbound routes) */
                                    inbound_address: string | null;
                                    /** @description Custom inbound domain (inbound routes) */
                                    inbound_domain: string | null;
                                    /** Format: date-time */
                                    inbound_domain_verified_at: string | null;
                                    /** @description Spam score at or above which inbound mail is rejected */
                                    inbound_spam_threshold: number | null;
                                    /** @description inline (base64 in the webhook) or url (signed, expiring links) */
                                    attachment_delivery: string;
                                    track_opens: boolean;
                                    track_clicks: boolean;
                                    /** @description The settings that apply to the route's type (none for an inbound route, whose attachment_delivery is the route's field of that name) */
                                    settings: {
                                        /** @description Broadcast routes: no hosted unsubscribe link or List-Unsubscribe header is added (default false) */
                                        disable_hosted_unsubscribe?: boolean;
                                        /** @description Open tracking of the route's mail unless a send says otherwise (default false) */
                                        track_opens?: boolean;
                                        /** @description Click tracking of the route's mail unless a send says otherwise (default false) */
                                        track_clicks?: boolean;
                                        /** @description A send with only HTML gets a text part made from it (default false) */
                                        generate_plaintext_fallback?: boolean;
                                        /** @description X-Auto-Response-Suppress: All on its mail; auto-replies to it are recorded (auto_replied) but not sent to webhooks (default false) */
                                        suppress_auto_responders?: boolean;
                                        /** @description Recipients at disposable domains are suppressed at acceptance, reason disposable_email; no suppression is added (default false) */
                                        suppress_disposable_recipients?: boolean;
                                        /** @enum {string} */
                                        tls?: "opportunistic" | "enforced";
                                        /** @description Bodies, source and attachment contents are dropped once every recipient is final; reading them is a 410 (default false) */
                                        redact_email_content?: boolean;
                                    };
                                    webhooks_count: number;
                                    /** @description Distinct addresses suppressed for this route (team, project and route scopes) */
                                    suppressed_recipients_count: number;
                                }[];
                                routes_count: number;
                                domains: {
                                    id: string;
                                    domain: string;
                                    /** Format: date-time */
                                    status_changed_at: string | null;
                                    /** Format: date-time */
                                    created_at: string;
                                }[];
                                domains_count: number;
                                team_members: {
                                    /** @description Team member ID (used in PUT /v1/projects/{projectId}/members) */
                                    id: string;
                                    role: string;
                                    /**
                                     * Format: date-time
                                     * @description When the member accepted the invitation; null while it is pending
                                     */
                                    joined_at: string | null;
                                    /** Format: date-time */
                                    created_at: string;
                                    user: {
                                        id: string;
                                        name: string;
                                        email: string;
                                        avatar: string | null;
                                    };
                                    /** @enum {string} */
                                    status: "active" | "pending";
                                }[];
                                team_members_count: number;
                                last_28_days: {
                                    /** @description Outbound messages on transactional routes */
                                    messages_transactional: number;
                                    /** @description Outbound messages on broadcast routes */
                                    messages_broadcast: number;
                                    /** @description Inbound messages */
                                    messages_inbound: number;
                                    /** @description Percent (0–100) of outbound messages with a final outcome that were delivered; 0 when none */
                                    deliverability: number;
                                    /** @description Opens (pixel loads) by people on the window's messages */
                                    opens_human: number;
                                    /** @description Opens classified as machines (privacy proxies, scanners, prefetch) */
                                    opens_machine: number;
                                    /** @description Clicks of tracked links by people */
                                    clicks_human: number;
                                    /** @description Clicks classified as machines (link scanners, bursts, non-browser clients) */
                                    clicks_machine: number;
                                };
                            } | null;
                            /** @description Only with include=projectCount */
                            project_count?: number;
                            /** @description Only with include=projectExists */
                            project_exists?: boolean;
                            /** @description Only with include=statistics */
                            statistics?: {
                                /** @description Window of these figures, in days (28) */
                                period_days: number;
                                /** @description Messages on this route in the window */
                                messages_total: number;
                                /** @description Messages in the window by current status (every status, 0 when none) */
                                messages_by_status: {
                                    scheduled: number;
                                    pending: number;
                                    queued: number;
                                    quarantined: number;
                                    suppressed: number;
                                    processed: number;
                                    delivered: number;
                                    opened: number;
                                    clicked: number;
                                    soft_bounced: number;
                                    hard_bounced: number;
                                    spam_complaint: number;
                                    failed: number;
                                    blocked: number;
                                    policy_rejected: number;
                                    unsubscribed: number;
                                    canceled: number;
                                };
                                /** @description Percent (0–100) of outbound messages with a final outcome that were delivered; 0 when none */
                                deliverability: number;
                                /** @description Opens (pixel loads) by people on the window's messages */
                                opens_human: number;
                                /** @description Opens classified as machines (privacy proxies, scanners, prefetch) */
                                opens_machine: number;
                                /** @description Clicks of tracked links by people */
                                clicks_human: number;
                                /** @description Clicks classified as machines (link scanners, bursts, non-browser clients) */
                                clicks_machine: number;
                            };
                        }[];
                        path: string | null;
                        per_page: number;
                        next_cursor: string | null;
                        next_page_url: string | null;
                        prev_cursor: string | null;
                        prev_page_url: string | null;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    postV1ProjectsByProjectIdRoutes: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** @enum {string} */
                    route_type: "transactional" | "broadcast" | "inbound";
                    /** @description Unique in the project; derived from the name when absent */
                    slug?: string;
                    /** @description The route's settings (absent or null fields are left as they are); docs/sending.md, Route settings */
                    settings?: {
                        track_opens?: boolean | null;
                        track_clicks?: boolean | null;
                        generate_plaintext_fallback?: boolean | null;
                        suppress_auto_responders?: boolean | null;
                        suppress_disposable_recipients?: boolean | null;
                        tls?: "opportunistic" | "enforced" | null;
                        disable_hosted_unsubscribe?: boolean | null;
                        redact_email_content?: boolean | null;
                        attachment_delivery?: "inline" | "url" | null;
                    };
                };
            };
        };
        responses: {
            /** @description Response for status 201 */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            project_id: string;
                            slug: string;
                            name: string;
                            /** @enum {string} */
                            route_type: "transactional" | "broadcast" | "inbound";
                            is_default: boolean;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                            /** @description Generated address on the service's inbound domain (inbound routes) */
                            inbound_address: string | null;
                            /** @description Custom inbound domain (inbound routes) */
                            inbound_domain: string | null;
                            /** Format: date-time */
                            inbound_domain_verified_at: string | null;
                            /** @description Spam score at or above which inbound mail is rejected */
                            inbound_spam_threshold: number | null;
                            /** @description inline (base64 in the webhook) or url (signed, expiring links) */
                            attachment_delivery: string;
                            track_opens: boolean;
                            track_clicks: boolean;
                            /** @description The settings that apply to the route's type (none for an inbound route, whose attachment_delivery is the route's field of that name) */
                            settings: {
                                /** @description Broadcast routes: no hosted unsubscribe link or List-Unsubscribe header is added (default false) */
                                disable_hosted_unsubscribe?: boolean;
                                /** @description Open tracking of the route's mail unless a send says otherwise (default false) */
                                track_opens?: boolean;
                                /** @description Click tracking of the route's mail unless a send says otherwise (default false) */
                                track_clicks?: boolean;
                                /** @description A send with only HTML gets a text part made from it (default false) */
                                generate_plaintext_fallback?: boolean;
                                /** @description X-Auto-Response-Suppress: All on its mail; auto-replies to it are recorded (auto_replied) but not sent to webhooks (default false) */
                                suppress_auto_responders?: boolean;
                                /** @description Recipients at disposable domains are suppressed at acceptance, reason disposable_email; no suppression is added (default false) */
                                suppress_disposable_recipients?: boolean;
                                /** @enum {string} */
                                tls?: "opportunistic" | "enforced";
                                /** @description Bodies, source and attachment contents are dropped once every recipient is final; reading them is a 410 (default false) */
                                redact_email_content?: boolean;
                            };
                            webhooks_count: number;
                            /** @description Distinct addresses suppressed for this route (team, project and route scopes) */
                            suppressed_recipients_count: number;
                            /** @description Only when inbound_domain is set: the MX and the TXT verification record to publish before POST /v1/routes/{id}/verify-inbound-domain */
                            inbound_domain_records?: {
                                /** @enum {string} */
                                purpose: "inbound_mx" | "inbound_verification";
                                /** @enum {string} */
                                type: "MX" | "TXT";
                                /** @description Absolute name of the record */
                                fqdn: string;
                                /** @description The value to publish (for MX: the target host, as the only or most preferred MX) */
                                content: string;
                            }[];
                            project?: {
                                id: string;
                                name: string;
                                smtp_enabled: boolean;
                                /** @description Always false: Posthorn keeps message content (retention decides how long); Lettermint's field */
                                redact_email_content: boolean;
                                /** @description The default transactional route, used when a send names no route */
                                default_route_id: string | null;
                                /** Format: date-time */
                                token_generated_at: string;
                                /** Format: date-time */
                                token_last_used_at: string | null;
                                token_last_used_ip: string | null;
                                /** Format: date-time */
                                created_at: string;
                                /** Format: date-time */
                                updated_at: string;
                                /** @description The project's routes, without the nested project (the spec leaves it empty) */
                                routes: {
                                    id: string;
                                    project_id: string;
                                    slug: string;
                                    name: string;
                                    /** @enum {string} */
                                    route_type: "transactional" | "broadcast" | "inbound";
                                    is_default: boolean;
                                    /** Format: date-time */
                                    created_at: string;
                                    /** Format: date-time */
                                    updated_at: string;
                                    /** @description Generated address on the service's inbound domain (inbound routes) */
                                    inbound_address: string | null;
                                    /** @description Custom inbound domain (inbound routes) */
                                    inbound_domain: string | null;
                                    /** Format: date-time */
                                    inbound_domain_verified_at: string | null;
                                    /** @description Spam score at or above which inbound mail is rejected */
                                    inbound_spam_threshold: number | null;
                                    /** @description inline (base64 in the webhook) or url (signed, expiring links) */
                                    attachment_delivery: string;
                                    track_opens: boolean;
                                    track_clicks: boolean;
                                    /** @description The settings that apply to the route's type (none for an inbound route, whose attachment_delivery is the route's field of that name) */
                                    settings: {
                                        /** @description Broadcast routes: no hosted unsubscribe link or List-Unsubscribe header is added (default false) */
                                        disable_hosted_unsubscribe?: boolean;
                                        /** @description Open tracking of the route's mail unless a send says otherwise (default false) */
                                        track_opens?: boolean;
                                        /** @description Click tracking of the route's mail unless a send says otherwise (default false) */
                                        track_clicks?: boolean;
                                        /** @description A send with only HTML gets a text part made from it (default false) */
                                        generate_plaintext_fallback?: boolean;
                                        /** @description X-Auto-Response-Suppress: All on its mail; auto-replies to it are recorded (auto_replied) but not sent to webhooks (default false) */
                                        suppress_auto_responders?: boolean;
                                        /** @description Recipients at disposable domains are suppressed at acceptance, reason disposable_email; no suppression is added (default false) */
                                        suppress_disposable_recipients?: boolean;
                                        /** @enum {string} */
                                        tls?: "opportunistic" | "enforced";
                                        /** @description Bodies, source and attachment contents are dropped once every recipient is final; reading them is a 410 (default false) */
                                        redact_email_content?: boolean;
                                    };
                                    webhooks_count: number;
                                    /** @description Distinct addresses suppressed for this route (team, project and route scopes) */
                                    suppressed_recipients_count: number;
                                }[];
                                routes_count: number;
                                domains: {
                                    id: string;
                                    domain: string;
                                    /** Format: date-time */
                                    status_changed_at: string | null;
                                    /** Format: date-time */
                                    created_at: string;
                                }[];
                                domains_count: number;
                                team_members: {
                                    /** @description Team member ID (used in PUT /v1/projects/{projectId}/members) */
                                    id: string;
                                    role: string;
                                    /**
                                     * Format: date-time
                                     * @description When the member accepted the invitation; null while it is pending
                                     */
                                    joined_at: string | null;
                                    /** Format: date-time */
                                    created_at: string;
                                    user: {
                                        id: string;
                                        name: string;
                                        email: string;
                                        avatar: string | null;
                                    };
                                    /** @enum {string} */
                                    status: "active" | "pending";
                                }[];
                                team_members_count: number;
                                last_28_days: {
                                    /** @description Outbound messages on transactional routes */
                                    messages_transactional: number;
                                    /** @description Outbound messages on broadcast routes */
                                    messages_broadcast: number;
                                    /** @description Inbound messages */
                                    messages_inbound: number;
                                    /** @description Percent (0–100) of outbound messages with a final outcome that were delivered; 0 when none */
                                    deliverability: number;
                                    /** @description Opens (pixel loads) by people on the window's messages */
                                    opens_human: number;
                                    /** @description Opens classified as machines (privacy proxies, scanners, prefetch) */
                                    opens_machine: number;
                                    /** @description Clicks of tracked links by people */
                                    clicks_human: number;
                                    /** @description Clicks classified as machines (link scanners, bursts, non-browser clients) */
                                    clicks_machine: number;
                                };
                            } | null;
                            /** @description Only with include=projectCount */
                            project_count?: number;
                            /** @description Only with include=projectExists */
                            project_exists?: boolean;
                            /** @description Only with include=statistics */
                            statistics?: {
                                /** @description Window of these figures, in days (28) */
                                period_days: number;
                                /** @description Messages on this route in the window */
                                messages_total: number;
                                /** @description Messages in the window by current status (every status, 0 when none) */
                                messages_by_status: {
                                    scheduled: number;
                                    pending: number;
                                    queued: number;
                                    quarantined: number;
                                    suppressed: number;
                                    processed: number;
                                    delivered: number;
                                    opened: number;
                                    clicked: number;
                                    soft_bounced: number;
                                    hard_bounced: number;
                                    spam_complaint: number;
                                    failed: number;
                                    blocked: number;
                                    policy_rejected: number;
                                    unsubscribed: number;
                                    canceled: number;
                                };
                                /** @description Percent (0–100) of outbound messages with a final outcome that were delivered; 0 when none */
                                deliverability: number;
                                /** @description Opens (pixel loads) by people on the window's messages */
                                opens_human: number;
                                /** @description Opens classified as machines (privacy proxies, scanners, prefetch) */
                                opens_machine: number;
                                /** @description Clicks of tracked links by people */
                                clicks_human: number;
                                /** @description Clicks classified as machines (link scanners, bursts, non-browser clients) */
                                clicks_machine: number;
                            };
                        };
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1RoutesByRouteId: {
        parameters: {
            query?: {
                include?: string;
            };
            header?: never;
            path: {
                routeId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        project_id: string;
                        slug: string;
                        name: string;
                        /** @enum {string} */
                        route_type: "transactional" | "broadcast" | "inbound";
                        is_default: boolean;
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        updated_at: string;
                        /** @description Generated address on the service's inbound domain (inbound routes) */
                        inbound_address: string | null;
                        /** @description Custom inbound domain (inbound routes) */
                        inbound_domain: string | null;
                        /** Format: date-time */
                        inbound_domain_verified_at: string | null;
                        /** @description Spam score at or above which inbound mail is rejected */
                        inbound_spam_threshold: number | null;
                        /** @description inline (base64 in the webhook) or url (signed, expiring links) */
                        attachment_delivery: string;
                        track_opens: boolean;
                        track_clicks: boolean;
                        /** @description The settings that apply to the route's type (none for an inbound route, whose attachment_delivery is the route's field of that name) */
                        settings: {
                            /** @description Broadcast routes: no hosted unsubscribe link or List-Unsubscribe header is added (default false) */
                            disable_hosted_unsubscribe?: boolean;
                            /** @description Open tracking of the route's mail unless a send says otherwise (default false) */
                            track_opens?: boolean;
                            /** @description Click tracking of the route's mail unless a send says otherwise (default false) */
                            track_clicks?: boolean;
                            /** @description A send with only HTML gets a text part made from it (default false) */
                            generate_plaintext_fallback?: boolean;
                            /** @description X-Auto-Response-Suppress: All on its mail; auto-replies to it are recorded (auto_replied) but not sent to webhooks (default false) */
                            suppress_auto_responders?: boolean;
                            /** @description Recipients at disposable domains are suppressed at acceptance, reason disposable_email; no suppression is added (default false) */
                            suppress_disposable_recipients?: boolean;
                            /** @enum {string} */
                            tls?: "opportunistic" | "enforced";
                            /** @description Bodies, source and attachment contents are dropped once every recipient is final; reading them is a 410 (default false) */
                            redact_email_content?: boolean;
                        };
                        webhooks_count: number;
                        /** @description Distinct addresses suppressed for this route (team, project and route scopes) */
                        suppressed_recipients_count: number;
                        /** @description Only when inbound_domain is set: the MX and the TXT verification record to publish before POST /v1/routes/{id}/verify-inbound-domain */
                        inbound_domain_records?: {
                            /** @enum {string} */
                            purpose: "inbound_mx" | "inbound_verification";
                            /** @enum {string} */
                            type: "MX" | "TXT";
                            /** @description Absolute name of the record */
                            fqdn: string;
                            /** @description The value to publish (for MX: the target host, as the only or most preferred MX) */
                            content: string;
                        }[];
                        project?: {
                            id: string;
                            name: string;
                            smtp_enabled: boolean;
                            /** @description Always false: Posthorn keeps message content (retention decides how long); Lettermint's field */
                            redact_email_content: boolean;
                            /** @description The default transactional route, used when a send names no route */
                            default_route_id: string | null;
                            /** Format: date-time */
                            token_generated_at: string;
                            /** Format: date-time */
                            token_last_used_at: string | null;
                            token_last_used_ip: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                            /** @description The project's routes, without the nested project (the spec leaves it empty) */
                            routes: {
                                id: string;
                                project_id: string;
                                slug: string;
                                name: string;
                                /** @enum {string} */
                                route_type: "transactional" | "broadcast" | "inbound";
                                is_default: boolean;
                                /** Format: date-time */
                                created_at: string;
                                /** Format: date-time */
                                updated_at: string;
                                /** @description Generated address on the service's inbound domain (inbound routes) */
                                inbound_address: string | null;
                                /** @description Custom inbound domain (inbound routes) */
                                inbound_domain: string | null;
                                /** Format: date-time */
                                inbound_domain_verified_at: string | null;
                                /** @description Spam score at or above which inbound mail is rejected */
                                inbound_spam_threshold: number | null;
                                /** @description inline (base64 in the webhook) or url (signed, expiring links) */
                                attachment_delivery: string;
                                track_opens: boolean;
                                track_clicks: boolean;
                                /** @description The settings that apply to the route's type (none for an inbound route, whose attachment_delivery is the route's field of that name) */
                                settings: {
                                    /** @description Broadcast routes: no hosted unsubscribe link or List-Unsubscribe header is added (default false) */
                                    disable_hosted_unsubscribe?: boolean;
                                    /** @description Open tracking of the route's mail unless a send says otherwise (default false) */
                                    track_opens?: boolean;
                                    /** @description Click tracking of the route's mail unless a send says otherwise (default false) */
                                    track_clicks?: boolean;
                                    /** @description A send with only HTML gets a text part made from it (default false) */
                                    generate_plaintext_fallback?: boolean;
                                    /** @description X-Auto-Response-Suppress: All on its mail; auto-replies to it are recorded (auto_replied) but not sent to webhooks (default false) */
                                    suppress_auto_responders?: boolean;
                                    /** @description Recipients at disposable domains are suppressed at acceptance, reason disposable_email; no suppression is added (default false) */
                                    suppress_disposable_recipients?: boolean;
                                    /** @enum {string} */
                                    tls?: "opportunistic" | "enforced";
                                    /** @description Bodies, source and attachment contents are dropped once every recipient is final; reading them is a 410 (default false) */
                                    redact_email_content?: boolean;
                                };
                                webhooks_count: number;
                                /** @description Distinct addresses suppressed for this route (team, project and route scopes) */
                                suppressed_recipients_count: number;
                            }[];
                            routes_count: number;
                            domains: {
                                id: string;
                                domain: string;
                                /** Format: date-time */
                                status_changed_at: string | null;
                                /** Format: date-time */
                                created_at: string;
                            }[];
                            domains_count: number;
                            team_members: {
                                /** @description Team member ID (used in PUT /v1/projects/{projectId}/members) */
                                id: string;
                                role: string;
                                /**
                                 * Format: date-time
                                 * @description When the member accepted the invitation; null while it is pending
                                 */
                                joined_at: string | null;
                                /** Format: date-time */
                                created_at: string;
                                user: {
                                    id: string;
                                    name: string;
                                    email: string;
                                    avatar: string | null;
                                };
                                /** @enum {string} */
                                status: "active" | "pending";
                            }[];
                            team_members_count: number;
                            last_28_days: {
                                /** @description Outbound messages on transactional routes */
                                messages_transactional: number;
                                /** @description Outbound messages on broadcast routes */
                                messages_broadcast: number;
                                /** @description Inbound messages */
                                messages_inbound: number;
                                /** @description Percent (0–100) of outbound messages with a final outcome that were delivered; 0 when none */
                                deliverability: number;
                                /** @description Opens (pixel loads) by people on the window's messages */
                                opens_human: number;
                                /** @description Opens classified as machines (privacy proxies, scanners, prefetch) */
                                opens_machine: number;
                                /** @description Clicks of tracked links by people */
                                clicks_human: number;
                                /** @description Clicks classified as machines (link scanners, bursts, non-browser clients) */
                                clicks_machine: number;
                            };
                        } | null;
                        /** @description Only with include=projectCount */
                        project_count?: number;
                        /** @description Only with include=projectExists */
                        project_exists?: boolean;
                        /** @description Only with include=statistics */
                        statistics?: {
                            /** @description Window of these figures, in days (28) */
                            period_days: number;
                            /** @description Messages on this route in the window */
                            messages_total: number;
                            /** @description Messages in the window by current status (every status, 0 when none) */
                            messages_by_status: {
                                scheduled: number;
                                pending: number;
                                queued: number;
                                quarantined: number;
                                suppressed: number;
                                processed: number;
                                delivered: number;
                                opened: number;
                                clicked: number;
                                soft_bounced: number;
                                hard_bounced: number;
                                spam_complaint: number;
                                failed: number;
                                blocked: number;
                                policy_rejected: number;
                                unsubscribed: number;
                                canceled: number;
                            };
                            /** @description Percent (0–100) of outbound messages with a final outcome that were delivered; 0 when none */
                            deliverability: number;
                            /** @description Opens (pixel loads) by people on the window's messages */
                            opens_human: number;
                            /** @description Opens classified as machines (privacy proxies, scanners, prefetch) */
                            opens_machine: number;
                            /** @description Clicks of tracked links by people */
                            clicks_human: number;
                            /** @description Clicks classified as machines (link scanners, bursts, non-browser clients) */
                            clicks_machine: number;
                        };
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    putV1RoutesByRouteId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                routeId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description null or absent leaves it unchanged */
                    name?: string | null;
                    /** @description Inbound routes only; null or absent leaves them unchanged */
                    inbound_settings?: {
                        /** @description Custom inbound domain; changing it clears inbound_domain_verified_at; null removes it */
                        inbound_domain?: string | null;
                        inbound_spam_threshold?: number | null;
                        attachment_delivery?: "inline" | "url" | null;
                    };
                    track_opens?: boolean | null;
                    track_clicks?: boolean | null;
                    /** @description The route's settings (absent or null fields are left as they are); docs/sending.md, Route settings */
                    settings?: {
                        track_opens?: boolean | null;
                        track_clicks?: boolean | null;
                        generate_plaintext_fallback?: boolean | null;
                        suppress_auto_responders?: boolean | null;
                        suppress_disposable_recipients?: boolean | null;
                        tls?: "opportunistic" | "enforced" | null;
                        disable_hosted_unsubscribe?: boolean | null;
                        redact_email_content?: boolean | null;
                        attachment_delivery?: "inline" | "url" | null;
                    };
                };
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            project_id: string;
                            slug: string;
                            name: string;
                            /** @enum {string} */
                            route_type: "transactional" | "broadcast" | "inbound";
                            is_default: boolean;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                            /** @description Generated address on the service's inbound domain (inbound routes) */
                            inbound_address: string | null;
                            /** @description Custom inbound domain (inbound routes) */
                            inbound_domain: string | null;
                            /** Format: date-time */
                            inbound_domain_verified_at: string | null;
                            /** @description Spam score at or above which inbound mail is rejected */
                            inbound_spam_threshold: number | null;
                            /** @description inline (base64 in the webhook) or url (signed, expiring links) */
                            attachment_delivery: string;
                            track_opens: boolean;
                            track_clicks: boolean;
                            /** @description The settings that apply to the route's type (none for an inbound route, whose attachment_delivery is the route's field of that name) */
                            settings: {
                                /** @description Broadcast routes: no hosted unsubscribe link or List-Unsubscribe header is added (default false) */
                                disable_hosted_unsubscribe?: boolean;
                                /** @description Open tracking of the route's mail unless a send says otherwise (default false) */
                                track_opens?: boolean;
                                /** @description Click tracking of the route's mail unless a send says otherwise (default false) */
                                track_clicks?: boolean;
                                /** @description A send with only HTML gets a text part made from it (default false) */
                                generate_plaintext_fallback?: boolean;
                                /** @description X-Auto-Response-Suppress: All on its mail; auto-replies to it are recorded (auto_replied) but not sent to webhooks (default false) */
                                suppress_auto_responders?: boolean;
                                /** @description Recipients at disposable domains are suppressed at acceptance, reason disposable_email; no suppression is added (default false) */
                                suppress_disposable_recipients?: boolean;
                                /** @enum {string} */
                                tls?: "opportunistic" | "enforced";
                                /** @description Bodies, source and attachment contents are dropped once every recipient is final; reading them is a 410 (default false) */
                                redact_email_content?: boolean;
                            };
                            webhooks_count: number;
                            /** @description Distinct addresses suppressed for this route (team, project and route scopes) */
                            suppressed_recipients_count: number;
                            /** @description Only when inbound_domain is set: the MX and the TXT verification record to publish before POST /v1/routes/{id}/verify-inbound-domain */
                            inbound_domain_records?: {
                                /** @enum {string} */
                                purpose: "inbound_mx" | "inbound_verification";
                                /** @enum {string} */
                                type: "MX" | "TXT";
                                /** @description Absolute name of the record */
                                fqdn: string;
                                /** @description The value to publish (for MX: the target host, as the only or most preferred MX) */
                                content: string;
                            }[];
                            project?: {
                                id: string;
                                name: string;
                                smtp_enabled: boolean;
                                /** @description Always false: Posthorn keeps message content (retention decides how long); Lettermint's field */
                                redact_email_content: boolean;
                                /** @description The default transactional route, used when a send names no route */
                                default_route_id: string | null;
                                /** Format: date-time */
                                token_generated_at: string;
                                /** Format: date-time */
                                token_last_used_at: string | null;
                                token_last_used_ip: string | null;
                                /** Format: date-time */
                                created_at: string;
                                /** Format: date-time */
                                updated_at: string;
                                /** @description The project's routes, without the nested project (the spec leaves it empty) */
                                routes: {
                                    id: string;
                                    project_id: string;
                                    slug: string;
                                    name: string;
                                    /** @enum {string} */
                                    route_type: "transactional" | "broadcast" | "inbound";
                                    is_default: boolean;
                                    /** Format: date-time */
                                    created_at: string;
                                    /** Format: date-time */
                                    updated_at: string;
                                    /** @description Generated address on the service's inbound domain (inbound routes) */
                                    inbound_address: string | null;
                                    /** @description Custom inbound domain (inbound routes) */
                                    inbound_domain: string | null;
                                    /** Format: date-time */
                                    inbound_domain_verified_at: string | null;
                                    /** @description Spam score at or above which inbound mail is rejected */
                                    inbound_spam_threshold: number | null;
                                    /** @description inline (base64 in the webhook) or url (signed, expiring links) */
                                    attachment_delivery: string;
                                    track_opens: boolean;
                                    track_clicks: boolean;
                                    /** @description The settings that apply to the route's type (none for an inbound route, whose attachment_delivery is the route's field of that name) */
                                    settings: {
                                        /** @description Broadcast routes: no hosted unsubscribe link or List-Unsubscribe header is added (default false) */
                                        disable_hosted_unsubscribe?: boolean;
                                        /** @description Open tracking of the route's mail unless a send says otherwise (default false) */
                                        track_opens?: boolean;
                                        /** @description Click tracking of the route's mail unless a send says otherwise (default false) */
                                        track_clicks?: boolean;
                                        /** @description A send with only HTML gets a text part made from it (default false) */
                                        generate_plaintext_fallback?: boolean;
                                        /** @description X-Auto-Response-Suppress: All on its mail; auto-replies to it are recorded (auto_replied) but not sent to webhooks (default false) */
                                        suppress_auto_responders?: boolean;
                                        /** @description Recipients at disposable domains are suppressed at acceptance, reason disposable_email; no suppression is added (default false) */
                                        suppress_disposable_recipients?: boolean;
                                        /** @enum {string} */
                                        tls?: "opportunistic" | "enforced";
                                        /** @description Bodies, source and attachment contents are dropped once every recipient is final; reading them is a 410 (default false) */
                                        redact_email_content?: boolean;
                                    };
                                    webhooks_count: number;
                                    /** @description Distinct addresses suppressed for this route (team, project and route scopes) */
                                    suppressed_recipients_count: number;
                                }[];
                                routes_count: number;
                                domains: {
                                    id: string;
                                    domain: string;
                                    /** Format: date-time */
                                    status_changed_at: string | null;
                                    /** Format: date-time */
                                    created_at: string;
                                }[];
                                domains_count: number;
                                team_members: {
                                    /** @description Team member ID (used in PUT /v1/projects/{projectId}/members) */
                                    id: string;
                                    role: string;
                                    /**
                                     * Format: date-time
                                     * @description When the member accepted the invitation; null while it is pending
                                     */
                                    joined_at: string | null;
                                    /** Format: date-time */
                                    created_at: string;
                                    user: {
                                        id: string;
                                        name: string;
                                        email: string;
                                        avatar: string | null;
                                    };
                                    /** @enum {string} */
                                    status: "active" | "pending";
                                }[];
                                team_members_count: number;
                                last_28_days: {
                                    /** @description Outbound messages on transactional routes */
                                    messages_transactional: number;
                                    /** @description Outbound messages on broadcast routes */
                                    messages_broadcast: number;
                                    /** @description Inbound messages */
                                    messages_inbound: number;
                                    /** @description Percent (0–100) of outbound messages with a final outcome that were delivered; 0 when none */
                                    deliverability: number;
                                    /** @description Opens (pixel loads) by people on the window's messages */
                                    opens_human: number;
                                    /** @description Opens classified as machines (privacy proxies, scanners, prefetch) */
                                    opens_machine: number;
                                    /** @description Clicks of tracked links by people */
                                    clicks_human: number;
                                    /** @description Clicks classified as machines (link scanners, bursts, non-browser clients) */
                                    clicks_machine: number;
                                };
                            } | null;
                            /** @description Only with include=projectCount */
                            project_count?: number;
                            /** @description Only with include=projectExists */
                            project_exists?: boolean;
                            /** @description Only with include=statistics */
                            statistics?: {
                                /** @description Window of these figures, in days (28) */
                                period_days: number;
                                /** @description Messages on this route in the window */
                                messages_total: number;
                                /** @description Messages in the window by current status (every status, 0 when none) */
                                messages_by_status: {
                                    scheduled: number;
                                    pending: number;
                                    queued: number;
                                    quarantined: number;
                                    suppressed: number;
                                    processed: number;
                                    delivered: number;
                                    opened: number;
                                    clicked: number;
                                    soft_bounced: number;
                                    hard_bounced: number;
                                    spam_complaint: number;
                                    failed: number;
                                    blocked: number;
                                    policy_rejected: number;
                                    unsubscribed: number;
                                    canceled: number;
                                };
                                /** @description Percent (0–100) of outbound messages with a final outcome that were delivered; 0 when none */
                                deliverability: number;
                                /** @description Opens (pixel loads) by people on the window's messages */
                                opens_human: number;
                                /** @description Opens classified as machines (privacy proxies, scanners, prefetch) */
                                opens_machine: number;
                                /** @description Clicks of tracked links by people */
                                clicks_human: number;
                                /** @description Clicks classified as machines (link scanners, bursts, non-browser clients) */
                                clicks_machine: number;
                            };
                        };
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    deleteV1RoutesByRouteId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                routeId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1Messages: {
        parameters: {
            query?: {
                "page[size]"?: number;
                "page[cursor]"?: string;
                sort?: string;
                "filter[type]"?: "inbound" | "outbound";
                "filter[status]"?: "scheduled" | "pending" | "queued" | "quarantined" | "suppressed" | "processed" | "delivered" | "opened" | "clicked" | "soft_bounced" | "hard_bounced" | "spam_complaint" | "failed" | "blocked" | "policy_rejected" | "unsubscribed" | "canceled";
                "filter[route_id]"?: string;
                "filter[domain_id]"?: string;
                "filter[tag]"?: string;
                "filter[tags][0][name]"?: string;
                "filter[tags][0][value]"?: string;
                "filter[from_email]"?: string;
                "filter[subject]"?: string;
                "filter[from_date]"?: string;
                "filter[to_date]"?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            /** @enum {string} */
                            type: "inbound" | "outbound";
                            /** @description Message status: scheduled, pending, queued, quarantined, suppressed, processed, delivered, opened, clicked, soft_bounced, hard_bounced, spam_complaint, failed, blocked, policy_rejected, unsubscribed, canceled */
                            status: string;
                            from_email: string;
                            from_name: string;
                            subject: string;
                            to: {
                                email: string;
                                name: string;
                            }[];
                            cc: {
                                email: string;
                                name: string;
                            }[];
                            bcc: {
                                email: string;
                                name: string;
                            }[];
                            reply_to: string[];
                            tag: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            status_changed_at: string;
                            /**
                             * Format: date-time
                             * @description When a message sent with scheduled_at is (or was) to be sent (UTC); null for mail sent on acceptance and inbound mail
                             */
                            scheduled_at: string | null;
                            /** @description Name-value tags as sent, in order */
                            tags: {
                                name: string;
                                value: string;
                            }[];
                        }[];
                        path: string | null;
                        per_page: number;
                        next_cursor: string | null;
                        next_page_url: string | null;
                        prev_cursor: string | null;
                        prev_page_url: string | null;
                        /** @description Always empty: the page URLs are in meta and next_page_url/prev_page_url */
                        links: string[];
                        meta: {
                            path: string | null;
                            per_page: number;
                            next_cursor: string | null;
                            next_cursor_url: string | null;
                            prev_cursor: string | null;
                            prev_cursor_url: string | null;
                        };
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1MessagesByMessageId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {string} */
                        type: "inbound" | "outbound";
                        /** @description Message status: scheduled, pending, queued, quarantined, suppressed, processed, delivered, opened, clicked, soft_bounced, hard_bounced, spam_complaint, failed, blocked, policy_rejected, unsubscribed, canceled */
                        status: string;
                        /** Format: date-time */
                        status_changed_at: string;
                        /**
                         * Format: date-time
                         * @description When a message sent with scheduled_at is (or was) to be sent (UTC); null for mail sent on acceptance and inbound mail
                         */
                        scheduled_at: string | null;
                        tag: string | null;
                        /** @description Name-value tags as sent, in order */
                        tags: {
                            name: string;
                            value: string;
                        }[];
                        from_email: string;
                        from_name: string;
                        reply_to: string[];
                        subject: string;
                        to: {
                            email: string;
                            name: string;
                        }[];
                        cc: {
                            email: string;
                            name: string;
                        }[];
                        bcc: {
                            email: string;
                            name: string;
                        }[];
                        attachments: {
                            size: number;
                            filename: string;
                            content_id: string | null;
                            content_type: string;
                        }[];
                        metadata: {
                            [key: string]: string;
                        };
                        /** @description null once the route was deleted */
                        route_id: string | null;
                        /** Format: date-time */
                        created_at: string;
                        /** @description Inbound messages; null for outbound */
                        spam_score: number | null;
                        spam_symbols: {
                            name: string;
                            score: number;
                            options: string[];
                            description: string;
                        }[];
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    patchV1MessagesByMessageId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                messageId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The new time to send: ISO 8601 with an offset (Z or ±hh:mm), in the future, at most 30 days ahead */
                    scheduled_at: string;
                };
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message_id: string;
                        /** @enum {string} */
                        status: "scheduled" | "canceled";
                        /**
                         * Format: date-time
                         * @description The time to send (UTC); after a cancel, the time it was scheduled for
                         */
                        scheduled_at: string | null;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    postV1MessagesByMessageIdProcess: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 202 */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            message_id: string;
                            /**
                             * @description Queued for the inbound job, which hands it to the route's webhooks as message.inbound
                             * @constant
                             */
                            status: "queued";
                            /** @description Enabled webhooks of the route that receive message.inbound */
                            webhook_target_count: number;
                        };
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1MessagesByMessageIdEvents: {
        parameters: {
            query?: {
                "page[size]"?: number;
                "page[cursor]"?: string;
            };
            header?: never;
            path: {
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            /** @description The service's event type (Lettermint's MessageEventType): scheduled (message.created of a message sent with scheduled_at), rescheduled, canceled, queued (message.created, message.queued), processed (message.sent, message.report_received), delivered, soft_bounced, hard_bounced, failed, suppressed, blocked, opened, clicked, spam_complaint, unsubscribed, policy_rejected, auto_replied, inbound_received (message.inbound), inbound_spam_blocked (held as quarantined), inbound_released (POST /v1/messages/{id}/process) */
                            event: string;
                            /** @description Posthorn's event kind, e.g. message.delivered (as webhooks name it) */
                            kind: string;
                            status: string | null;
                            /** @description The recipient this event is about, when it concerns one */
                            recipient: string | null;
                            data: {
                                [key: string]: unknown;
                            };
                            /** Format: date-time */
                            created_at: string;
                            message_id: string;
                            /** @description The message's tag */
                            tag: string | null;
                            /** @description The message's name-value tags */
                            tags: {
                                name: string;
                                value: string;
                            }[];
                            /** @description The message's metadata */
                            metadata: {
                                [key: string]: string;
                            };
                            /**
                             * Format: date-time
                             * @description = created_at
                             */
                            timestamp: string;
                        }[];
                        path: string | null;
                        per_page: number;
                        next_cursor: string | null;
                        next_page_url: string | null;
                        prev_cursor: string | null;
                        prev_page_url: string | null;
                        /** @description Always empty: the page URLs are in meta and next_page_url/prev_page_url */
                        links: string[];
                        meta: {
                            path: string | null;
                            per_page: number;
                            next_cursor: string | null;
                            next_cursor_url: string | null;
                            prev_cursor: string | null;
                            prev_cursor_url: string | null;
                        };
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1MessagesByMessageIdRecipients: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            email: string;
                            status: string;
                        }[];
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1MessagesByMessageIdHtml: {
        parameters: {
            query?: {
                images?: "0" | "1";
            };
            header?: never;
            path: {
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The HTML, with a Content-Security-Policy that sandboxes it */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description Unknown message, or one without HTML */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description Content dropped (retention, redact_email_content) or kept from the team (a report forwarding code's mail) */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description Invalid images value */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1MessagesByMessageIdText: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The text part as accepted or received */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description Unknown message, or one without a text part */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description Content dropped (retention, redact_email_content) or kept from the team (a report forwarding code's mail) */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1MessagesByMessageIdSource: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The message exactly as sent or received */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "message/rfc822": string;
                };
            };
            /** @description Unauthenticated */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description Unknown message, or no source stored yet */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description Content dropped (retention, redact_email_content) or kept from the team (a report forwarding code's mail) */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1QueueDestinations: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description The sorted MX host set of its domains, comma-separated, or relay:<host> */
                            name: string;
                            mx_hosts: string[];
                            /** @description Recipient domains seen going there (up to 20) */
                            domains: string[];
                            paused: boolean;
                            /**
                             * Format: date-time
                             * @description When a pause after a rate reply ends (also shown once it has ended)
                             */
                            paused_until: string | null;
                            concurrency: number | null;
                            max_concurrency: number | null;
                            per_minute: number | null;
                            max_per_minute: number | null;
                            /** @description Rate replies in a row (each doubles the next pause) */
                            strikes: number;
                            /**
                             * Format: date-time
                             * @description The last rate reply that paused it
                             */
                            throttled_at: string | null;
                            /** @description The latest reply the destination gave to this team's own mail still queued there; null when none has (a pause another team's mail caused shows no reply) */
                            last_reply: {
                                code: number | null;
                                enhanced_code: string | null;
                                message: string;
                            } | null;
                            /** Format: date-time */
                            updated_at: string;
                        }[];
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1Queue: {
        parameters: {
            query?: {
                "page[size]"?: number;
                "page[cursor]"?: string;
                "filter[domain]"?: string;
                "filter[route_id]"?: string;
                "filter[status]"?: "scheduled" | "pending" | "queued" | "processed" | "soft_bounced";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            /** @description null once the route was deleted */
                            route_id: string | null;
                            status: string;
                            from_email: string;
                            subject: string;
                            /** Format: date-time */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description When a scheduled message goes out (status scheduled until then; PATCH /v1/messages/{id} moves it, POST /v1/messages/{id}/cancel cancels it); the time it went for one sent since; null: sent on acceptance.
                             */
                            scheduled_at: string | null;
                            /**
                             * Format: date-time
                             * @description When the next attempt is due; while one is under way, when its lease ends. null when no attempt is scheduled.
                             */
                            next_attempt_at: string | null;
                            /** @description The most attempts any of its recipients has had */
                            attempts: number;
                            last_response: {
                                code: number | null;
                                /** @description RFC 3463 enhanced status code, e.g. 4.7.28 */
                                enhanced_code: string | null;
                                message: string;
                            } | null;
                            /** @description Why the message waits although nothing failed: its sending domain's warm-up reached the day's cap (docs/deliverability.md, Warm-up); it stays queued and goes at next_attempt_at. null otherwise. */
                            held_reason: string | null;
                            /** @description The recipients not final yet */
                            recipients: {
                                email: string;
                                /** @description scheduled (waiting for the message's scheduled_at), pending, queued, processed (an attempt is under way) or soft_bounced (waiting for the next attempt) */
                                status: string;
                                /** @description Delivery attempts so far */
                                attempts: number;
                                last_response: {
                                    code: number | null;
                                    /** @description RFC 3463 enhanced status code, e.g. 4.7.28 */
                                    enhanced_code: string | null;
                                    message: string;
                                } | null;
                                /** Format: date-time */
                                status_changed_at: string;
                            }[];
                        }[];
                        path: string | null;
                        per_page: number;
                        next_cursor: string | null;
                        next_page_url: string | null;
                        prev_cursor: string | null;
                        prev_page_url: string | null;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    postV1QueueRetry: {
        parameters: {
            query?: {
                "filter[domain]"?: string;
                "filter[route_id]"?: string;
                "filter[status]"?: "scheduled" | "pending" | "queued" | "processed" | "soft_bounced";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description Messages affected */
                            messages: number;
                            /** @description Recipients affected (cancel: those now failed with reason cancelled; retry: those of the messages made due) */
                            recipients: number;
                        };
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    postV1QueueCancel: {
        parameters: {
            query?: {
                "filter[domain]"?: string;
                "filter[route_id]"?: string;
                "filter[status]"?: "scheduled" | "pending" | "queued" | "processed" | "soft_bounced";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description Messages affected */
                            messages: number;
                            /** @description Recipients affected (cancel: those now failed with reason cancelled; retry: those of the messages made due) */
                            recipients: number;
                        };
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    postV1MessagesByMessageIdRetry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            /** @description null once the route was deleted */
                            route_id: string | null;
                            status: string;
                            from_email: string;
                            subject: string;
                            /** Format: date-time */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description When a scheduled message goes out (status scheduled until then; PATCH /v1/messages/{id} moves it, POST /v1/messages/{id}/cancel cancels it); the time it went for one sent since; null: sent on acceptance.
                             */
                            scheduled_at: string | null;
                            /**
                             * Format: date-time
                             * @description When the next attempt is due; while one is under way, when its lease ends. null when no attempt is scheduled.
                             */
                            next_attempt_at: string | null;
                            /** @description The most attempts any of its recipients has had */
                            attempts: number;
                            last_response: {
                                code: number | null;
                                /** @description RFC 3463 enhanced status code, e.g. 4.7.28 */
                                enhanced_code: string | null;
                                message: string;
                            } | null;
                            /** @description Why the message waits although nothing failed: its sending domain's warm-up reached the day's cap (docs/deliverability.md, Warm-up); it stays queued and goes at next_attempt_at. null otherwise. */
                            held_reason: string | null;
                            /** @description The recipients not final yet */
                            recipients: {
                                email: string;
                                /** @description scheduled (waiting for the message's scheduled_at), pending, queued, processed (an attempt is under way) or soft_bounced (waiting for the next attempt) */
                                status: string;
                                /** @description Delivery attempts so far */
                                attempts: number;
                                last_response: {
                                    code: number | null;
                                    /** @description RFC 3463 enhanced status code, e.g. 4.7.28 */
                                    enhanced_code: string | null;
                                    message: string;
                                } | null;
                                /** Format: date-time */
                                status_changed_at: string;
                            }[];
                        } | null;
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    "postV1MessagesByMessageIdCancel-delivery": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            cancelled: number;
                            queued: {
                                id: string;
                                /** @description null once the route was deleted */
                                route_id: string | null;
                                status: string;
                                from_email: string;
                                subject: string;
                                /** Format: date-time */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @description When a scheduled message goes out (status scheduled until then; PATCH /v1/messages/{id} moves it, POST /v1/messages/{id}/cancel cancels it); the time it went for one sent since; null: sent on acceptance.
                                 */
                                scheduled_at: string | null;
                                /**
                                 * Format: date-time
                                 * @description When the next attempt is due; while one is under way, when its lease ends. null when no attempt is scheduled.
                                 */
                                next_attempt_at: string | null;
                                /** @description The most attempts any of its recipients has had */
                                attempts: number;
                                last_response: {
                                    code: number | null;
                                    /** @description RFC 3463 enhanced status code, e.g. 4.7.28 */
                                    enhanced_code: string | null;
                                    message: string;
                                } | null;
                                /** @description Why the message waits although nothing failed: its sending domain's warm-up reached the day's cap (docs/deliverability.md, Warm-up); it stays queued and goes at next_attempt_at. null otherwise. */
                                held_reason: string | null;
                                /** @description The recipients not final yet */
                                recipients: {
                                    email: string;
                                    /** @description scheduled (waiting for the message's scheduled_at), pending, queued, processed (an attempt is under way) or soft_bounced (waiting for the next attempt) */
                                    status: string;
                                    /** @description Delivery attempts so far */
                                    attempts: number;
                                    last_response: {
                                        code: number | null;
                                        /** @description RFC 3463 enhanced status code, e.g. 4.7.28 */
                                        enhanced_code: string | null;
                                        message: string;
                                    } | null;
                                    /** Format: date-time */
                                    status_changed_at: string;
                                }[];
                            } | null;
                        };
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    postV1MessagesByMessageIdCancel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message_id: string;
                        /** @enum {string} */
                        status: "scheduled" | "canceled";
                        /**
                         * Format: date-time
                         * @description The time to send (UTC); after a cancel, the time it was scheduled for
                         */
                        scheduled_at: string | null;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1Suppressions: {
        parameters: {
            query?: {
                "page[size]"?: number;
                "page[cursor]"?: string;
                sort?: string;
                "filter[email]"?: string;
                "filter[value]"?: string;
                "filter[type]"?: "email" | "domain" | "extension";
                "filter[scope]"?: "team" | "project" | "route";
                "filter[reason]"?: "spam_complaint" | "hard_bounce" | "unsubscribe" | "manual";
                "filter[project_id]"?: string;
                "filter[route_id]"?: string;
                "filter[startDate]"?: string;
                "filter[endDate]"?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            /** @description The address for type email; null for a domain or extension */
                            email: string | null;
                            /** @description team, project or route */
                            scope: string;
                            /** @description spam_complaint, hard_bounce, unsubscribe, manual */
                            reason: string;
                            project_id: string | null;
                            route_id: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /** @enum {string} */
                            type: "email" | "domain" | "extension";
                            /** @description The address, domain or extension (lower-cased) */
                            value: string;
                            /** @description The message whose hard bounce, complaint or unsubscribe added it; null for one added by hand */
                            source_message: {
                                id: string;
                                /** @description false once the message is no longer stored */
                                available: boolean;
                                subject: string | null;
                                /** Format: date-time */
                                created_at: string | null;
                            } | null;
                            /**
                             * Format: date-time
                             * @description = created_at (a suppression is never changed)
                             */
                            updated_at: string;
                        }[];
                        path: string | null;
                        per_page: number;
                        next_cursor: string | null;
                        next_page_url: string | null;
                        prev_cursor: string | null;
                        prev_page_url: string | null;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    postV1Suppressions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    reason: "spam_complaint" | "hard_bounce" | "unsubscribe" | "manual";
                    /** @enum {string} */
                    scope: "team" | "project" | "route";
                    /** Format: email */
                    email?: string;
                    emails?: string[];
                    /** @description Required when scope is route; a route of this team */
                    route_id?: string;
                    /** @description Required when scope is project; a project of this team */
                    project_id?: string;
                    /** @enum {string} */
                    type?: "email" | "domain" | "extension";
                    value?: string;
                    values?: string[];
                };
            };
        };
        responses: {
            /** @description Response for status 201 */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        data: {
                            /** @description The addresses suppressed now (lower-cased) */
                            created: string[];
                            /** @description The addresses left out: already suppressed in that scope, or listed twice in this request */
                            skipped: string[];
                        };
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    deleteV1SuppressionsBySuppressionId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                suppressionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @constant */
                        success: true;
                        /** @constant */
                        status: "removed";
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1Webhooks: {
        parameters: {
            query?: {
                "page[size]"?: number;
                "page[cursor]"?: string;
                cursor?: string;
                sort?: string;
                "filter[route_id]"?: string;
                "filter[enabled]"?: "true" | "false";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            route_id: string;
                            name: string;
                            /** Format: uri */
                            url: string;
                            /** @description Subscribed event kinds */
                            events: string[];
                            enabled: boolean;
                            /** @description Whether message.opened / message.clicked events of hits classified as machines (machine: true) are sent too; default false: people only */
                            include_machine_events: boolean;
                            /** @description Why the service disabled the webhook (e.g. the receiver answered 410) */
                            disabled_reason: string | null;
                            /** Format: date-time */
                            last_called_at: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                        }[];
                        path: string | null;
                        per_page: number;
                        next_cursor: string | null;
                        next_page_url: string | null;
                        prev_cursor: string | null;
                        prev_page_url: string | null;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    postV1Webhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    route_id: string;
                    name: string;
                    /** @description https:// URL that receives the signed POSTs */
                    url: string;
                    events: ("message.created" | "message.scheduled" | "message.rescheduled" | "message.canceled" | "message.sent" | "message.delivered" | "message.soft_bounced" | "message.hard_bounced" | "message.bounced" | "message.failed" | "message.suppressed" | "message.opened" | "message.clicked" | "message.spam_complaint" | "message.unsubscribed" | "message.auto_replied" | "message.inbound" | "message.policy_rejected" | "domain.dns_record_failed" | "deliverability.listed" | "deliverability.delisted" | "suppression.added" | "suppression.removed" | "webhook.test")[];
                    enabled?: boolean | null;
                    include_machine_events?: boolean | null;
                };
            };
        };
        responses: {
            /** @description Response for status 201 */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            route_id: string;
                            name: string;
                            /** Format: uri */
                            url: string;
                            /** @description Subscribed event kinds */
                            events: string[];
                            enabled: boolean;
                            /** @description Whether message.opened / message.clicked events of hits classified as machines (machine: true) are sent too; default false: people only */
                            include_machine_events: boolean;
                            /** @description Why the service disabled the webhook (e.g. the receiver answered 410) */
                            disabled_reason: string | null;
                            /** Format: date-time */
                            last_called_at: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                            /** @description Signing secret (whsec_…), shown once: store it now */
                            secret: string;
                        };
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1WebhooksById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        route_id: string;
                        name: string;
                        /** Format: uri */
                        url: string;
                        /** @description Subscribed event kinds */
                        events: string[];
                        enabled: boolean;
                        /** @description Whether message.opened / message.clicked events of hits classified as machines (machine: true) are sent too; default false: people only */
                        include_machine_events: boolean;
                        /** @description Why the service disabled the webhook (e.g. the receiver answered 410) */
                        disabled_reason: string | null;
                        /** Format: date-time */
                        last_called_at: string | null;
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        updated_at: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    putV1WebhooksById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    /** @description https:// URL that receives the signed POSTs */
                    url?: string;
                    events?: ("message.created" | "message.scheduled" | "message.rescheduled" | "message.canceled" | "message.sent" | "message.delivered" | "message.soft_bounced" | "message.hard_bounced" | "message.bounced" | "message.failed" | "message.suppressed" | "message.opened" | "message.clicked" | "message.spam_complaint" | "message.unsubscribed" | "message.auto_replied" | "message.inbound" | "message.policy_rejected" | "domain.dns_record_failed" | "deliverability.listed" | "deliverability.delisted" | "suppression.added" | "suppression.removed" | "webhook.test")[];
                    enabled?: boolean | null;
                    include_machine_events?: boolean | null;
                };
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            route_id: string;
                            name: string;
                            /** Format: uri */
                            url: string;
                            /** @description Subscribed event kinds */
                            events: string[];
                            enabled: boolean;
                            /** @description Whether message.opened / message.clicked events of hits classified as machines (machine: true) are sent too; default false: people only */
                            include_machine_events: boolean;
                            /** @description Why the service disabled the webhook (e.g. the receiver answered 410) */
                            disabled_reason: string | null;
                            /** Format: date-time */
                            last_called_at: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                        };
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    deleteV1WebhooksById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    "postV1WebhooksByIdRegenerate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            route_id: string;
                            name: string;
                            /** Format: uri */
                            url: string;
                            /** @description Subscribed event kinds */
                            events: string[];
                            enabled: boolean;
                            /** @description Whether message.opened / message.clicked events of hits classified as machines (machine: true) are sent too; default false: people only */
                            include_machine_events: boolean;
                            /** @description Why the service disabled the webhook (e.g. the receiver answered 410) */
                            disabled_reason: string | null;
                            /** Format: date-time */
                            last_called_at: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                            /** @description Signing secret (whsec_…), shown once: store it now */
                            secret: string;
                        };
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    postV1WebhooksByIdTest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            success: boolean;
                            status_code: number | null;
                            duration_ms: number;
                            error: string | null;
                            response_excerpt: string | null;
                            event_id: string;
                            delivery_id: string | null;
                        };
                        message: string;
                        /** @description = data.delivery_id */
                        delivery_id: string | null;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    postV1WebhooksByIdDeliveriesByDeliveryIdRedeliver: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                deliveryId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            success: boolean;
                            status_code: number | null;
                            duration_ms: number;
                            error: string | null;
                            response_excerpt: string | null;
                            event_id: string;
                            delivery_id: string | null;
                        };
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1WebhooksByIdDeliveriesByDeliveryId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                deliveryId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        webhook_id: string;
                        event_id: string;
                        event: string;
                        attempt: number;
                        /** @enum {string} */
                        outcome: "succeeded" | "failed";
                        status_code: number | null;
                        duration_ms: number;
                        error: string | null;
                        /** @description Start of the receiver's answer (up to 2 KB) */
                        response_excerpt: string | null;
                        /** Format: date-time */
                        next_attempt_at: string | null;
                        /** Format: date-time */
                        created_at: string;
                        /** @description = event */
                        event_type: string;
                        /** @enum {string} */
                        status: "pending" | "success" | "failed" | "client_error" | "server_error" | "timeout";
                        /** @description = attempt */
                        attempt_number: number;
                        http_status_code: number | null;
                        /**
                         * Format: date-time
                         * @description When the receiver accepted it; null unless status is success
                         */
                        delivered_at: string | null;
                        /** @description The exact JSON body that was signed and sent, as the only element (an array, as Lettermint's SDK types declare it); empty once retention purged the event */
                        payload: string[];
                        /** @description = response_excerpt */
                        response_body: string | null;
                        /** @description Not recorded */
                        response_headers: null;
                        /** @description = error */
                        error_message: string | null;
                        /**
                         * Format: date-time
                         * @description = created_at
                         */
                        timestamp: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1WebhooksByIdDeliveries: {
        parameters: {
            query?: {
                "page[size]"?: number;
                "page[cursor]"?: string;
                cursor?: string;
                "filter[event]"?: string;
                "filter[outcome]"?: "succeeded" | "failed";
                "filter[event_id]"?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            id: string;
                            webhook_id: string;
                            event_id: string;
                            event: string;
                            attempt: number;
                            /** @enum {string} */
                            outcome: "succeeded" | "failed";
                            status_code: number | null;
                            duration_ms: number;
                            error: string | null;
                            /** @description Start of the receiver's answer (up to 2 KB) */
                            response_excerpt: string | null;
                            /** Format: date-time */
                            next_attempt_at: string | null;
                            /** Format: date-time */
                            created_at: string;
                            /** @description = event */
                            event_type: string;
                            /** @enum {string} */
                            status: "pending" | "success" | "failed" | "client_error" | "server_error" | "timeout";
                            /** @description = attempt */
                            attempt_number: number;
                            http_status_code: number | null;
                            /**
                             * Format: date-time
                             * @description When the receiver accepted it; null unless status is success
                             */
                            delivered_at: string | null;
                        }[];
                        path: string | null;
                        per_page: number;
                        next_cursor: string | null;
                        next_page_url: string | null;
                        prev_cursor: string | null;
                        prev_page_url: string | null;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1AttachmentsByAttachmentIdDownload: {
        parameters: {
            query?: {
                expires?: string;
                signature?: string;
            };
            header?: never;
            path: {
                attachmentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The attachment's bytes, as a download */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
        };
    };
    "getV1Blocked-file-types": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        extensions: string[];
                        mime_types: string[];
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1Stats: {
        parameters: {
            query: {
                from: string;
                to: string;
                project_id?: string;
                include_machine?: "true" | "false" | "1" | "0";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        from: string;
                        to: string;
                        totals: {
                            /** @description Recipients handed to delivery (first attempts) */
                            sent: number;
                            delivered: number;
                            hard_bounced: number;
                            spam_complaints: number;
                            opened: number | null;
                            clicked: number | null;
                            inbound: {
                                received: number;
                            };
                            transactional: {
                                sent: number;
                                hard_bounced: number;
                                spam_complaints: number;
                            } | null;
                            broadcast: {
                                sent: number;
                                hard_bounced: number;
                                spam_complaints: number;
                            } | null;
                            observed_opened: number | null;
                            human_opened: number | null;
                            privacy_opened: number | null;
                            effective_opened: number | null;
                            machine_opened: number | null;
                            machine_clicked: number | null;
                        };
                        daily: {
                            /** @description YYYY-MM-DD (UTC) */
                            date: string;
                            /** @description Recipients handed to delivery (first attempts) */
                            sent: number;
                            delivered: number;
                            hard_bounced: number;
                            spam_complaints: number;
                            opened: number | null;
                            clicked: number | null;
                            inbound: {
                                received: number;
                            };
                            transactional: {
                                sent: number;
                                hard_bounced: number;
                                spam_complaints: number;
                            } | null;
                            broadcast: {
                                sent: number;
                                hard_bounced: number;
                                spam_complaints: number;
                            } | null;
                            observed_opened: number | null;
                            human_opened: number | null;
                            privacy_opened: number | null;
                            effective_opened: number | null;
                            machine_opened: number | null;
                            machine_clicked: number | null;
                        }[];
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1TeamUsage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        current_period: {
                            /** @description Outbound messages accepted in the period */
                            usage: number;
                            /** Format: date-time */
                            last_incremented_at: string | null;
                            /** Format: date-time */
                            period_start: string;
                            /** Format: date-time */
                            period_end: string;
                        };
                        /** @description The 12 calendar months before, newest first */
                        historical_usage: {
                            /** @description Outbound messages accepted in the period */
                            usage: number;
                            /** Format: date-time */
                            last_incremented_at: string | null;
                            /** Format: date-time */
                            period_start: string;
                            /** Format: date-time */
                            period_end: string;
                        }[];
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    postV1Analytics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    metrics: string[];
                    from?: string;
                    to?: string;
                    timezone?: string;
                    include?: string[];
                    group_by?: string[];
                    filters?: {
                        dimension: string;
                        operator: string;
                        values?: string[];
                    }[];
                    interval?: string;
                    compare?: string;
                    include_trend?: boolean;
                    sort?: {
                        metric: string;
                        direction: string;
                    };
                    limit?: number;
                    cursor?: string;
                };
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            summary?: {
                                metrics: {
                                    [key: string]: number | null;
                                };
                                rate_bases: {
                                    [key: string]: {
                                        numerator: number | null;
                                        denominator: number | null;
                                    };
                                };
                                previous?: {
                                    metrics: {
                                        [key: string]: number | null;
                                    };
                                    rate_bases: {
                                        [key: string]: {
                                            numerator: number | null;
                                            denominator: number | null;
                                        };
                                    };
                                };
                                change?: {
                                    [key: string]: {
                                        absolute?: number | null;
                                        relative?: number | null;
                                        percentage_points?: number | null;
                                    };
                                };
                            };
                            time_series?: {
                                metrics: {
                                    [key: string]: number | null;
                                };
                                rate_bases: {
                                    [key: string]: {
                                        numerator: number | null;
                                        denominator: number | null;
                                    };
                                };
                                from: string;
                                to: string;
                                available: boolean;
                                partial: boolean;
                            }[];
                            breakdown?: {
                                metrics: {
                                    [key: string]: number | null;
                                };
                                rate_bases: {
                                    [key: string]: {
                                        numerator: number | null;
                                        denominator: number | null;
                                    };
                                };
                                dimensions: {
                                    [key: string]: string | null;
                                };
                                previous?: {
                                    metrics: {
                                        [key: string]: number | null;
                                    };
                                    rate_bases: {
                                        [key: string]: {
                                            numerator: number | null;
                                            denominator: number | null;
                                        };
                                    };
                                };
                                change?: {
                                    [key: string]: {
                                        absolute?: number | null;
                                        relative?: number | null;
                                        percentage_points?: number | null;
                                    };
                                };
                                trend?: {
                                    metrics: {
                                        [key: string]: number | null;
                                    };
                                    rate_bases: {
                                        [key: string]: {
                                            numerator: number | null;
                                            denominator: number | null;
                                        };
                                    };
                                    from: string;
                                    to: string;
                                    available: boolean;
                                    partial: boolean;
                                }[];
                            }[];
                        };
                        meta: {
                            time_basis: string;
                            timezone: string;
                            interval: string;
                            from: string;
                            to: string;
                            effective_to: string;
                            alignment: string;
                            generated_at: string;
                            available_since: string;
                            partial: boolean;
                            ongoing: boolean;
                            collection_completeness: string;
                            last_ingested_at: string | null;
                            metric_definition_version: string;
                            ranked_group_limit: number;
                            comparison?: {
                                from: string;
                                to: string;
                                partial: boolean;
                            };
                        };
                        pagination: {
                            total_groups: number;
                            returned_groups: number;
                            next_cursor: null;
                            truncated: boolean;
                        };
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    "postV1AuthSign-in": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @example owner@example.com */
                    email: string;
                    password: string;
                    /** @description The team to sign in to, when the user belongs to several; default the first they joined */
                    team_id?: string;
                    /** @description The 6-digit code of the user's authenticator app, or one of their recovery codes: needed when two-factor sign-in is on (a sign-in without it is a 401 whose error is two_factor_required) */
                    code?: string;
                };
            };
        };
        responses: {
            /** @description Response for status 201 */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            user: {
                                id: string;
                                name: string;
                                email: string;
                            };
                            team: {
                                id: string;
                                name: string;
                                /**
                                 * @example owner
                                 * @example member
                                 */
                                role: string;
                            };
                            /** @description Every team the user belongs to (sign in again with team_id to switch) */
                            teams: {
                                id: string;
                                name: string;
                                /**
                                 * @example owner
                                 * @example member
                                 */
                                role: string;
                            }[];
                            two_factor: {
                                /** @description The user signs in with a TOTP code (or a recovery code) after the password */
                                enabled: boolean;
                                /** @description The team requires two-factor sign-in of every member */
                                required: boolean;
                                /** @description This session may only set up two-factor sign-in (the team requires it and the sign-in had no second factor); every other request is a 403 two_factor_enrolment_required */
                                must_enrol: boolean;
                                recovery_codes_left: number;
                            };
                            /** @description Send it in the X-CSRF-Token header of every request that changes something */
                            csrf_token: string;
                            /**
                             * Format: date-time
                             * @description When the session ends if it stays idle; every use moves it on, up to 30 days after sign-in
                             */
                            expires_at: string;
                        };
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
        };
    };
    getV1AuthSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            user: {
                                id: string;
                                name: string;
                                email: string;
                            };
                            team: {
                                id: string;
                                name: string;
                                /**
                                 * @example owner
                                 * @example member
                                 */
                                role: string;
                            };
                            /** @description Every team the user belongs to (sign in again with team_id to switch) */
                            teams: {
                                id: string;
                                name: string;
                                /**
                                 * @example owner
                                 * @example member
                                 */
                                role: string;
                            }[];
                            two_factor: {
                                /** @description The user signs in with a TOTP code (or a recovery code) after the password */
                                enabled: boolean;
                                /** @description The team requires two-factor sign-in of every member */
                                required: boolean;
                                /** @description This session may only set up two-factor sign-in (the team requires it and the sign-in had no second factor); every other request is a 403 two_factor_enrolment_required */
                                must_enrol: boolean;
                                recovery_codes_left: number;
                            };
                            /** @description Send it in the X-CSRF-Token header of every request that changes something */
                            csrf_token: string;
                            /**
                             * Format: date-time
                             * @description When the session ends if it stays idle; every use moves it on, up to 30 days after sign-in
                             */
                            expires_at: string;
                        };
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    "postV1AuthSign-out": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    "postV1AuthSign-out-everywhere": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    postV1AuthPassword: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The one-time token of the link (after #/set-password/) */
                    token: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
        };
    };
    postV1AuthInvitationsAccept: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The one-time token of the invitation_url (after #/accept-invitation/) */
                    token: string;
                    /** @description The invited user's own password, instead of a session (for a user who is active in no team yet) */
                    password?: string;
                    /** @description With password, for a user with two-factor sign-in on: a TOTP code or a recovery code (as at sign-in) */
                    code?: string;
                };
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            user: {
                                id: string;
                                name: string;
                                email: string;
                            };
                            team: {
                                id: string;
                                name: string;
                                /**
                                 * @example owner
                                 * @example member
                                 */
                                role: string;
                            };
                            /** @description Every team the user belongs to (sign in again with team_id to switch) */
                            teams: {
                                id: string;
                                name: string;
                                /**
                                 * @example owner
                                 * @example member
                                 */
                                role: string;
                            }[];
                            two_factor: {
                                /** @description The user signs in with a TOTP code (or a recovery code) after the password */
                                enabled: boolean;
                                /** @description The team requires two-factor sign-in of every member */
                                required: boolean;
                                /** @description This session may only set up two-factor sign-in (the team requires it and the sign-in had no second factor); every other request is a 403 two_factor_enrolment_required */
                                must_enrol: boolean;
                                recovery_codes_left: number;
                            };
                            /** @description Send it in the X-CSRF-Token header of every request that changes something */
                            csrf_token: string;
                            /**
                             * Format: date-time
                             * @description When the session ends if it stays idle; every use moves it on, up to 30 days after sign-in
                             */
                            expires_at: string;
                        };
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
        };
    };
    "postV1AuthTwo-factorEnrol": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 201 */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description The TOTP secret (base32), shown this once: type it into an authenticator app, or use otpauth_uri */
                            secret: string;
                            /** @description otpauth://totp/... for a QR code (SHA1, 6 digits, 30 seconds) */
                            otpauth_uri: string;
                        };
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    "postV1AuthTwo-factorConfirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @example 123456 */
                    code: string;
                };
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description Single-use codes that stand in for the authenticator, shown this once */
                            recovery_codes: string[];
                        };
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
        };
    };
    "postV1AuthTwo-factorDisable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @example 123456 */
                    code: string;
                };
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
        };
    };
    "postV1AuthTwo-factorRecovery-codes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @example 123456 */
                    code: string;
                };
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description Single-use codes that stand in for the authenticator, shown this once */
                            recovery_codes: string[];
                        };
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
        };
    };
    "putV1AuthTwo-factorRequirement": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Whether every member must sign in with two factors */
                    required: boolean;
                };
            };
        };
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            429: components["responses"]["RateLimited"];
        };
    };
    getV1AuthSso: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Response for status 200 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description Single sign-on is configured (POSTHORN_OIDC_ISSUER) */
                            enabled: boolean;
                            /** @description Why this browser's last single sign-on was refused, once, for the sign-in page to show (a browser's refused callback leads there); null when there is none */
                            failure: string | null;
                        };
                    };
                };
            };
        };
    };
    getV1AuthSsoStart: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
        };
    };
    getV1AuthSsoCallback: {
        parameters: {
            query?: {
                state?: string;
                code?: string;
                error?: string;
                error_description?: string;
                iss?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Error */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Error */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
            /** @description Validation failed; errors are keyed by field path */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        errors: {
                            [key: string]: string[];
                        };
                        /** @description A short string, stable per kind of error (not_found, validation_failed, …), which Lettermint's SDKs show */
                        error: string;
                    };
                };
            };
        };
    };
}
