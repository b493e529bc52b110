-- prepare
CREATE ROLE IF NOT EXISTS `tw_6d493479_r1682673098ce6d56`;
CREATE ROLE IF NOT EXISTS `tw_6d493479_r20b872e41ee6e331`;
CREATE ROLE IF NOT EXISTS `tw_6d493479_r3b2473a8305b0fb9`;
CREATE ROLE IF NOT EXISTS `tw_6d493479_rba5ee4aa79a9e722`;
CREATE ROLE IF NOT EXISTS `tw_6d493479_rfb332d738bf7278d`;
CREATE MASKING POLICY IF NOT EXISTS `finance`.`tw_6d493479_mad05c9ae58697295` AS (`tw_value` VARCHAR(65533)) RETURNS VARCHAR(65533) -> CASE WHEN current_user() IN ('''farid.haddad''@''%''') THEN `tw_value` ELSE CAST(NULL AS VARCHAR(65533)) END COMMENT 'tagwarden: default_catalog.finance.customers.iban';
-- tighten
ALTER TABLE `finance`.`customers` MODIFY COLUMN `iban` SET MASKING POLICY `finance`.`tw_6d493479_mad05c9ae58697295`;
-- widen
GRANT INSERT, UPDATE, DELETE ON TABLE `finance`.`audit_log` TO ROLE `tw_6d493479_r1682673098ce6d56`;
GRANT INSERT, UPDATE, DELETE ON TABLE `finance`.`customers` TO ROLE `tw_6d493479_r20b872e41ee6e331`;
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE `finance`.`invoices` TO ROLE `tw_6d493479_r20b872e41ee6e331`;
GRANT SELECT ON VIEW `finance`.`invoice_summary` TO ROLE `tw_6d493479_r20b872e41ee6e331`;
GRANT ALTER, DROP ON TABLE `finance`.`audit_log` TO ROLE `tw_6d493479_r3b2473a8305b0fb9`;
GRANT INSERT, UPDATE, DELETE, ALTER, DROP ON TABLE `sales`.`orders` TO ROLE `tw_6d493479_r3b2473a8305b0fb9`;
GRANT SELECT ON TABLE `sales`.`orders` TO ROLE `tw_6d493479_rba5ee4aa79a9e722`;
GRANT SELECT ON TABLE `finance`.`audit_log` TO ROLE `tw_6d493479_rfb332d738bf7278d`;
GRANT SELECT ON TABLE `finance`.`customers` TO ROLE `tw_6d493479_rfb332d738bf7278d`;
GRANT `tw_6d493479_r1682673098ce6d56` TO USER 'etl_svc'@'%';
GRANT `tw_6d493479_r1682673098ce6d56` TO USER 'farid.haddad'@'%';
GRANT `tw_6d493479_r20b872e41ee6e331` TO USER 'farid.haddad'@'%';
GRANT `tw_6d493479_r3b2473a8305b0fb9` TO USER 'etl_svc'@'%';
GRANT `tw_6d493479_rba5ee4aa79a9e722` TO USER 'ana.auditor'@'%';
GRANT `tw_6d493479_rba5ee4aa79a9e722` TO USER 'etl_svc'@'%';
GRANT `tw_6d493479_rba5ee4aa79a9e722` TO USER 'farid.haddad'@'%';
GRANT `tw_6d493479_rba5ee4aa79a9e722` TO USER 'grace.lee'@'%';
GRANT `tw_6d493479_rba5ee4aa79a9e722` TO USER 'jo.kim'@'%';
GRANT `tw_6d493479_rba5ee4aa79a9e722` TO USER 'platform-admin'@'%';
GRANT `tw_6d493479_rfb332d738bf7278d` TO USER 'ana.auditor'@'%';
GRANT `tw_6d493479_rfb332d738bf7278d` TO USER 'etl_svc'@'%';
GRANT `tw_6d493479_rfb332d738bf7278d` TO USER 'farid.haddad'@'%';
GRANT `tw_6d493479_rfb332d738bf7278d` TO USER 'grace.lee'@'%';
GRANT `tw_6d493479_rfb332d738bf7278d` TO USER 'jo.kim'@'%';
GRANT `tw_6d493479_rfb332d738bf7278d` TO USER 'member-sso'@'%';
GRANT `tw_6d493479_rfb332d738bf7278d` TO USER 'platform-admin'@'%';
